import { sql, type Transaction } from 'kysely';
import type { Database, Order } from '../../db/schema.js';
import type { PriceSource } from './market-data.js';
import { D, dec, roundMoney, roundPrice, type Dec } from './money.js';
import type { Queryable } from './store.js';

export type { Queryable };

export const PAPER_CURRENCY = 'USD';

export interface Position {
  symbol: string;
  quantity: Dec;
  average_cost: Dec;
  updated_at: Date;
}

/** Every account has one funded paper account, opened on first use. */
export async function ensurePaperAccount(db: Queryable, accountId: string, startingCash: string): Promise<void> {
  await db
    .insertInto('paper_accounts')
    .values({ account_id: accountId, currency: PAPER_CURRENCY, cash: startingCash, updated_at: new Date() })
    .onConflict((c) => c.column('account_id').doNothing())
    .execute();
}

/** Opens (if needed) and locks the paper account: every change of cash or positions holds this lock. */
export async function lockPaperAccount(trx: Transaction<Database>, accountId: string, startingCash: string) {
  await ensurePaperAccount(trx, accountId, startingCash);
  const row = await trx.selectFrom('paper_accounts').selectAll().where('account_id', '=', accountId).forUpdate().executeTakeFirstOrThrow();
  return { cash: dec(row.cash), currency: row.currency, updated_at: new Date(row.updated_at) };
}

export async function readPaperAccount(db: Queryable, accountId: string, startingCash: string) {
  await ensurePaperAccount(db, accountId, startingCash);
  const row = await db.selectFrom('paper_accounts').selectAll().where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return { cash: dec(row.cash), currency: row.currency, updated_at: new Date(row.updated_at) };
}

export async function positionsOf(db: Queryable, accountId: string): Promise<Position[]> {
  const rows = await db.selectFrom('positions').selectAll().where('account_id', '=', accountId).orderBy('symbol').execute();
  return rows.map((r) => ({ symbol: r.symbol, quantity: dec(r.quantity), average_cost: dec(r.average_cost), updated_at: new Date(r.updated_at) }));
}

/** Executes a fill: cash, the position and the fill record change together, in the caller's transaction. */
export async function applyFill(trx: Transaction<Database>, order: Order, price: Dec, at: Date): Promise<{ notional: Dec }> {
  const quantity = dec(order.quantity);
  const notional = roundMoney(quantity.times(price));
  const cashDelta = order.side === 'buy' ? notional.negated() : notional;
  await trx
    .updateTable('paper_accounts')
    .set({ cash: sql`cash + ${cashDelta.toFixed()}::numeric`, updated_at: at })
    .where('account_id', '=', order.account_id)
    .execute();

  const existing = await trx
    .selectFrom('positions')
    .selectAll()
    .where('account_id', '=', order.account_id)
    .where('symbol', '=', order.symbol)
    .forUpdate()
    .executeTakeFirst();
  const held = existing ? dec(existing.quantity) : new D(0);
  const heldCost = existing ? dec(existing.average_cost) : new D(0);
  const after = order.side === 'buy' ? held.plus(quantity) : held.minus(quantity);
  if (after.isZero()) {
    await trx.deleteFrom('positions').where('account_id', '=', order.account_id).where('symbol', '=', order.symbol).execute();
  } else {
    // Buys move the average cost; sells realise P&L and leave it as it was.
    const averageCost = order.side === 'buy' ? roundPrice(held.times(heldCost).plus(quantity.times(price)).dividedBy(after)) : heldCost;
    await trx
      .insertInto('positions')
      .values({ account_id: order.account_id, symbol: order.symbol, quantity: after.toFixed(), average_cost: averageCost.toFixed(), updated_at: at })
      .onConflict((c) => c.columns(['account_id', 'symbol']).doUpdateSet({ quantity: after.toFixed(), average_cost: averageCost.toFixed(), updated_at: at }))
      .execute();
  }
  await trx
    .insertInto('fills')
    .values({
      order_id: order.id,
      account_id: order.account_id,
      symbol: order.symbol,
      side: order.side,
      quantity: quantity.toFixed(),
      price: price.toFixed(),
      notional: notional.toFixed(),
      at,
    })
    .execute();
  return { notional };
}

export interface Valuation {
  cash: Dec;
  marketValue: Dec;
  total: Dec;
  holdings: { position: Position; price: Dec; priceAsOf: Date; marketValue: Dec }[];
}

export function value(prices: PriceSource, cash: Dec, positions: Position[], at: Date): Valuation {
  const holdings = positions.map((position) => {
    const quote = prices.quote(position.symbol, at);
    return { position, price: quote.price, priceAsOf: quote.as_of, marketValue: roundMoney(position.quantity.times(quote.price)) };
  });
  const marketValue = holdings.reduce((sum, h) => sum.plus(h.marketValue), new D(0));
  return { cash, marketValue, total: cash.plus(marketValue), holdings };
}

/**
 * The account as it stood at `at`: today's cash and positions with every later fill undone, priced at `at`.
 * Used for start-of-day values (daily loss limit, daily reports) without snapshots.
 */
export async function valueAt(db: Queryable, prices: PriceSource, accountId: string, startingCash: string, at: Date): Promise<Valuation> {
  const account = await readPaperAccount(db, accountId, startingCash);
  const positions = new Map((await positionsOf(db, accountId)).map((p) => [p.symbol, p]));
  const later = await db.selectFrom('fills').selectAll().where('account_id', '=', accountId).where('at', '>', at).execute();
  let cash = account.cash;
  for (const fill of later) {
    const quantity = dec(fill.quantity);
    const sign = fill.side === 'buy' ? -1 : 1;
    cash = cash.minus(dec(fill.notional).times(sign));
    const current = positions.get(fill.symbol) ?? { symbol: fill.symbol, quantity: new D(0), average_cost: new D(0), updated_at: at };
    positions.set(fill.symbol, { ...current, quantity: current.quantity.plus(quantity.times(sign)) });
  }
  return value(prices, cash, [...positions.values()].filter((p) => !p.quantity.isZero()), at);
}

export function startOfUtcDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

/** Notional the account filled in [from, to) (to open-ended when absent). */
export async function filledNotional(db: Queryable, accountId: string, from: Date, to?: Date): Promise<Dec> {
  let query = db
    .selectFrom('fills')
    .select(sql<string>`coalesce(sum(notional), 0)::text`.as('total'))
    .where('account_id', '=', accountId)
    .where('at', '>=', from);
  if (to) query = query.where('at', '<', to);
  const row = await query.executeTakeFirstOrThrow();
  return dec(row.total);
}
