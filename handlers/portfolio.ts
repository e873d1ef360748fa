import { listBrokers as brokersPage } from '../src/services/brokers.js';
import { getPortfolio as portfolioOf } from '../src/services/portfolio.js';
import { principalOf, type Handler } from './types.js';

export const getPortfolio: Handler<'getPortfolio'> = async (context) => ({
  status: 200,
  body: await portfolioOf(context.services, principalOf(context).accountId, context.query.market ?? 'US'),
});

export const listBrokers: Handler<'listBrokers'> = async ({ query }) => ({ status: 200, body: brokersPage(query) });
