import type { Handler } from './types.js';

export const listOrders: Handler<'listOrders'> = async ({ actor, query, services }) => ({ status: 200, body: await services.orders.list(actor, query) });

export const getOrder: Handler<'getOrder'> = async ({ actor, path, services }) => ({ status: 200, body: await services.orders.get(actor, path.id) });

export const approveOrder: Handler<'approveOrder'> = async ({ actor, path, services }) => ({ status: 200, body: await services.orders.approve(actor, path.id) });

export const rejectOrder: Handler<'rejectOrder'> = async ({ actor, path, body, services }) => ({
  status: 200,
  body: await services.orders.reject(actor, path.id, body?.reason),
});

export const cancelOrder: Handler<'cancelOrder'> = async ({ actor, path, body, services }) => ({
  status: 200,
  body: await services.orders.cancel(actor, path.id, body?.reason),
});
