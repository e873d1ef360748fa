import { ProblemError } from '../src/problems.js';
import { approveOrder as approve, cancelOrder as cancel, rejectOrder as reject } from '../src/services/orders/transitions.js';
import { getOrder as orderOf, listOrders as ordersOf } from '../src/services/orders/views.js';
import { principalOf, type Handler } from './types.js';

export const listOrders: Handler<'listOrders'> = async (context) => ({
  status: 200,
  body: await ordersOf(context.services.db.kysely, principalOf(context).accountId, context.query, context.services.clock.now()),
});

export const getOrder: Handler<'getOrder'> = async (context) => {
  const order = await orderOf(context.services.db.kysely, principalOf(context).accountId, context.path.id, context.services.clock.now());
  if (!order) throw new ProblemError('not-found', `There is no order ${context.path.id}.`);
  return { status: 200, body: order };
};

export const approveOrder: Handler<'approveOrder'> = async (context) => ({
  status: 200,
  body: await approve(context.services, principalOf(context), context.path.id),
});

export const rejectOrder: Handler<'rejectOrder'> = async (context) => ({
  status: 200,
  body: await reject(context.services, principalOf(context), context.path.id, context.body?.reason),
});

export const cancelOrder: Handler<'cancelOrder'> = async (context) => ({
  status: 200,
  body: await cancel(context.services, principalOf(context), context.path.id, context.body?.reason),
});
