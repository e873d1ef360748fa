import { sql, type Kysely, type Transaction } from 'kysely';
import { CompiledOnce } from '../../db/compiled-query.js';
import type { Database } from '../../db/schema.js';
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

export interface PaperAccount {
  cash: Dec;
  currency: string;
  updated_at: Date;
}

/**
 * The account's paper account. Until its first fill it exists only virtually — funded with the starting cash,
 * unchanged since the account was created — so reading it never writes.
 */
export async function readPaperAccount(db: Queryable, accountId: string, startingCash: string): Promise<PaperAccount> {
  const row = await db
    .selectFrom('accounts')
    .leftJoin('paper_accounts', 'paper_accounts.account_id', 'accounts.id')
    .select(['paper_accounts.cash', 'paper_accounts.currency', 'paper_accounts.updated_at', 'accounts.created_at'])
    .where('accounts.id', '=', accountId)
    .executeTakeFirstOrThrow();
  return {
    cash: dec(row.cash ?? startingCash),
    currency: row.currency ?? PAPER_CURRENCY,
    updated_at: new Date(row.updated_at ?? row.created_at),
  };
}

/** The paper-account lock every approval takes first, compiled once (db/compiled-query.ts). */
const paperAccountLock = new CompiledOnce(
  ['accountId'] as const,
  (db: Kysely<Database> | Transaction<Database>, v: { accountId: string }) =>
    db.selectFrom('paper_accounts').selectAll().where('account_id', '=', v.accountId).forUpdate(),
);

/** The paper-account lock with an account that does not exist: prepared on each connection before the service is ready. */
export const paperLockWarmUp = (db: Kysely<Database>) => paperAccountLock.with(db, { accountId: 'acct_warm_up' });

/** Opens (on first use) and locks the paper account: every change of cash or positions holds this lock. */
export async function lockPaperAccount(trx: Transaction<Database>, accountId: string, startingCash: string): Promise<PaperAccount> {
  const lock = async () => (await paperAccountLock.execute(trx, { accountId })).rows[0];
  let row = await lock();
  if (!row) {
    await trx
      .insertInto('paper_accounts')
      .values({ account_id: accountId, currency: PAPER_CURRENCY, cash: startingCash, updated_at: new Date() })
      .onConflict((c) => c.column('account_id').doNothing())
      .execute();
    row = await lock();
  }
  return { cash: dec(row!.cash), currency: row!.currency, updated_at: new Date(row!.updated_at) };
}

export async function positionsOf(db: Queryable, accountId: string): Promise<Position[]> {
  const rows = await db.selectFrom('positions').selectAll().where('account_id', '=', accountId).orderBy('symbol').execute();
  return rows.map((r) => ({
    symbol: r.symbol,
    quantity: dec(r.quantity),
    average_cost: dec(r.average_cost),
    updated_at: new Date(r.updated_at),
  }));
}

/** A fill as the ledger needs it to undo it. */
export interface FillRecord {
  symbol: string;
  side: 'buy' | 'sell';
  quantity: string;
  notional: string;
  at: Date | string;
}

/** The position a fill leaves: buys move the average cost; sells realise P&L and leave it as it was. */
export function positionAfterFill(
  held: Position | undefined,
  side: 'buy' | 'sell',
  quantity: Dec,
  price: Dec,
): { quantity: Dec; average_cost: Dec } {
  const heldQuantity = held?.quantity ?? new D(0);
  const heldCost = held?.average_cost ?? new D(0);
  const after = side === 'buy' ? heldQuantity.plus(quantity) : heldQuantity.minus(quantity);
  const averageCost =
    side === 'buy' && !after.isZero() ? roundPrice(heldQuantity.times(heldCost).plus(quantity.times(price)).dividedBy(after)) : heldCost;
  return { quantity: after, average_cost: averageCost };
}

export interface Valuation {
  cash: Dec;
  marketValue: Dec;
  total: Dec;
  holdings: { position: Position; price: Dec; priceAsOf: Date; marketValue: Dec }[];
}

export function value(prices: PriceSource, cash: Dec, positions: Position[], at: Date): Valuation {
  const holdings = positions.map((position) => {
    // A holding outside the catalogue (one a connected broker holds) that the source cannot price is valued at its
    // cost, as of its last change: a report or a chart of a past day has no broker price of it.
    const quote =
      prices.instrument(position.symbol) || prices.has?.(position.symbol)
        ? prices.quote(position.symbol, at)
        : { symbol: position.symbol, price: position.average_cost, as_of: position.updated_at };
    return { position, price: quote.price, priceAsOf: quote.as_of, marketValue: roundMoney(position.quantity.times(quote.price)) };
  });
  const marketValue = holdings.reduce((sum, h) => sum.plus(h.marketValue), new D(0));
  return { cash, marketValue, total: cash.plus(marketValue), holdings };
}

/**
 * Cash and positions before `fills` (those after `at`) happened, priced at `at`: the account as it stood then,
 * without snapshots. Used for start-of-day values (daily loss limit, daily reports).
 */
export function valueBefore(prices: PriceSource, cash: Dec, positions: Position[], fills: FillRecord[], at: Date): Valuation {
  const held = new Map(positions.map((p) => [p.symbol, p]));
  let before = cash;
  for (const fill of fills) {
    if (new Date(fill.at) <= at) continue;
    const sign = fill.side === 'buy' ? -1 : 1;
    before = before.minus(dec(fill.notional).times(sign));
    const current = held.get(fill.symbol) ?? { symbol: fill.symbol, quantity: new D(0), average_cost: new D(0), updated_at: at };
    held.set(fill.symbol, { ...current, quantity: current.quantity.plus(dec(fill.quantity).times(sign)) });
  }
  return value(
    prices,
    before,
    [...held.values()].filter((p) => !p.quantity.isZero()),
    at,
  );
}

/** The account as it stood at `at`, priced at `at`. */
export async function valueAt(db: Queryable, prices: PriceSource, accountId: string, startingCash: string, at: Date): Promise<Valuation> {
  const account = await readPaperAccount(db, accountId, startingCash);
  const positions = await positionsOf(db, accountId);
  const later = await db
    .selectFrom('fills')
    .select(['symbol', 'side', 'quantity', 'notional', 'at'])
    .where('account_id', '=', accountId)
    .where('at', '>', at)
    .execute();
  return valueBefore(prices, account.cash, positions, later, at);
}

/** The day's running totals an approval reads (account_days): nothing before the day's first fill. */
export interface DayTotals {
  traded: Dec;
  cashDelta: Dec;
  quantityDeltas: Map<string, Dec>;
}

export const NO_TRADES: DayTotals = { traded: new D(0), cashDelta: new D(0), quantityDeltas: new Map() };

/**
 * The account as it stood at the start of the day, priced then: the current cash and positions less what the day's
 * fills after its first instant changed (the same as valueBefore over those fills, from one row).
 */
export function valueAtDayStart(prices: PriceSource, cash: Dec, positions: Position[], today: DayTotals, dayStart: Date): Valuation {
  const held = new Map(positions.map((p) => [p.symbol, p]));
  for (const [symbol, bought] of today.quantityDeltas) {
    const current = held.get(symbol) ?? { symbol, quantity: new D(0), average_cost: new D(0), updated_at: dayStart };
    held.set(symbol, { ...current, quantity: current.quantity.minus(bought) });
  }
  return value(
    prices,
    cash.minus(today.cashDelta),
    [...held.values()].filter((p) => !p.quantity.isZero()),
    dayStart,
  );
}

/** A UTC day as PostgreSQL's date: YYYY-MM-DD. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
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
