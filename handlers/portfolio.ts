import { BROKERS } from '../src/services/brokers.js';
import { encodeCursor, decodeCursor } from '../src/services/pagination.js';
import { getPortfolio as portfolioOf } from '../src/services/portfolio.js';
import { principalOf, type Handler } from './types.js';

export const getPortfolio: Handler<'getPortfolio'> = async (context) => ({
  status: 200,
  body: await portfolioOf(context.services, principalOf(context).accountId, context.query.market ?? 'US'),
});

export const listBrokers: Handler<'listBrokers'> = async ({ query }) => {
  const limit = query.limit ?? 20;
  const after = decodeCursor<number>(query.cursor, 'number') ?? 0;
  const page = BROKERS.slice(after, after + limit);
  return { status: 200, body: { data: [...page], next_cursor: after + limit < BROKERS.length ? encodeCursor(after + limit) : null } };
};
