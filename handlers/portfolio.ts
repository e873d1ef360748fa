import type { Handler } from './types.js';

export const getPortfolio: Handler<'getPortfolio'> = async ({ actor, query, services }) => ({
  status: 200,
  body: await services.portfolio.get(actor, query.market ?? 'US'),
});

export const listBrokers: Handler<'listBrokers'> = async ({ actor, query, services }) => ({ status: 200, body: services.brokers.list(actor, query) });
