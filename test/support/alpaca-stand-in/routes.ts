import type { Broker } from './broker.js';
import { type AccountState, AlpacaRefusal, OPEN_STATUSES, type OrderState, refuse } from './state.js';
import { accountView, clockView, legacyClockView, orderView, positionView, tradeView } from './views.js';

/** An answer before it is written: the status and the JSON body (none for 204). */
export interface Answer {
  status: number;
  body?: unknown;
}

interface Call {
  account: AccountState;
  query: URLSearchParams;
  body: unknown;
  /** The path's captured segments, decoded. */
  params: string[];
}

type Route = [method: string, path: RegExp, handle: (broker: Broker, call: Call) => Answer];

const ok = (body: unknown): Answer => ({ status: 200, body });

const TRADING: Route[] = [
  ['GET', /^\/v2\/account$/, (b, c) => ok(accountView(b, c.account))],
  ['GET', /^\/v2\/positions$/, (b, c) => ok([...c.account.positions].map(([symbol, p]) => positionView(b, c.account, symbol, p)))],
  [
    'GET',
    /^\/v2\/positions\/([^/]+)$/,
    (b, c) => {
      const symbol = c.params[0]!;
      const position = c.account.positions.get(symbol);
      if (!position) throw refuse.notFound('position does not exist');
      return ok(positionView(b, c.account, symbol, position));
    },
  ],
  ['GET', /^\/v2\/clock$/, (b) => ok(legacyClockView(b))],
  ['GET', /^\/v3\/clock$/, (b) => ok(clockView(b))],
  ['POST', /^\/v2\/orders$/, (b, c) => ok(orderView(b.submit(c.account, c.body)))],
  ['GET', /^\/v2\/orders$/, (b, c) => ok(listOrders(b, c.account, c.query).map(orderView))],
  [
    'DELETE',
    /^\/v2\/orders$/,
    (b, c) => {
      const open = b.openOrders(c.account.keyId);
      for (const order of open) b.finish(order, 'canceled');
      return { status: 207, body: open.map((o) => ({ id: o.id, status: 200 })) };
    },
  ],
  ['GET', /^\/v2\/orders:by_client_order_id$/, (b, c) => ok(orderView(b.orderByClientId(c.account, required(c.query, 'client_order_id'))))],
  ['GET', /^\/v2\/orders\/([^/]+)$/, (b, c) => ok(orderView(b.orderById(c.account, c.params[0]!)))],
  [
    'DELETE',
    /^\/v2\/orders\/([^/]+)$/,
    (b, c) => {
      b.finish(b.orderById(c.account, c.params[0]!), 'canceled');
      return { status: 204 };
    },
  ],
];

const DATA: Route[] = [
  [
    'GET',
    /^\/v2\/stocks\/trades\/latest$/,
    (b, c) => {
      const symbols = required(c.query, 'symbols').split(',');
      const trades = symbols.flatMap((symbol) => {
        const quote = b.quote(symbol);
        return quote ? [[symbol, tradeView(quote)] as const] : [];
      });
      return ok({ trades: Object.fromEntries(trades) });
    },
  ],
  [
    'GET',
    /^\/v2\/stocks\/([^/]+)\/trades\/latest$/,
    (b, c) => {
      const symbol = c.params[0]!;
      const quote = b.quote(symbol);
      if (!quote) throw refuse.notFound(`no trade found for ${symbol}`);
      return ok({ symbol, trade: tradeView(quote) });
    },
  ],
];

/** The answer of the trading host (`trading`) or the market-data host (`data`) to an authenticated request. */
export function answer(host: 'trading' | 'data', broker: Broker, method: string, path: string, call: Omit<Call, 'params'>): Answer {
  for (const [routeMethod, pattern, handle] of host === 'trading' ? TRADING : DATA) {
    const match = pattern.exec(path);
    if (!match || routeMethod !== method) continue;
    try {
      return handle(broker, { ...call, params: match.slice(1).map((p) => decodeURIComponent(p)) });
    } catch (error) {
      if (error instanceof AlpacaRefusal) return refusal(error);
      throw error;
    }
  }
  return refusal(refuse.notFound('endpoint not found'));
}

export function refusal(error: AlpacaRefusal): Answer {
  return { status: error.status, body: { code: error.code, message: error.message } };
}

function required(query: URLSearchParams, name: string): string {
  const value = query.get(name);
  if (!value) throw new AlpacaRefusal(400, 40010000, `${name} is required`);
  return value;
}

/** `GET /v2/orders`: status open (the default), closed or all; newest first unless direction=asc; at most `limit` (50, up to 500). */
function listOrders(broker: Broker, account: AccountState, query: URLSearchParams): OrderState[] {
  const status = query.get('status') ?? 'open';
  if (!['open', 'closed', 'all'].includes(status)) throw refuse.invalid(`invalid status ${status}`);
  const limit = Number(query.get('limit') ?? 50);
  if (!Number.isInteger(limit) || limit < 1) throw refuse.invalid(`invalid limit ${query.get('limit')}`);
  const after = query.get('after');
  const until = query.get('until');
  const symbols = query.get('symbols')?.split(',');
  const side = query.get('side');
  const orders = broker
    .orders(account.keyId)
    .filter(
      (o) =>
        (status === 'all' || (status === 'open') === OPEN_STATUSES.has(o.status)) &&
        (!after || o.submittedAt > new Date(after)) &&
        (!until || o.submittedAt < new Date(until)) &&
        (!symbols || symbols.includes(o.symbol)) &&
        (!side || o.side === side),
    );
  if (query.get('direction') !== 'asc') orders.reverse();
  return orders.slice(0, Math.min(limit, 500));
}
