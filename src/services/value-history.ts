import type { Actor } from '../auth/authorize.js';
import type { ServiceContext } from './context.js';
import { positionsOf, readPaperAccount, value, type Position } from './ledger.js';
import { D, dec, num } from './money.js';

/** How far back the history reads the ledger (fills), and how many points it answers at most. */
const MAX_FILLS = 500;
const MAX_POINTS = 60;

export interface ValuePoint {
  at: string;
  value: number;
  cash: number;
}

/**
 * The account's value over time, from the ledger: the current cash and positions, walked back through the fills
 * (newest first) to the account's opening, each state priced at its own time — a point at the opening, one after
 * each fill and one now. No snapshots are stored; the prices are the price source's at each time. Bounded: the last
 * MAX_FILLS fills (older history starts at the oldest of them), thinned to MAX_POINTS evenly.
 */
export class ValueHistory {
  constructor(private readonly ctx: ServiceContext) {}

  async of(actor: Actor<'getPortfolio'>): Promise<ValuePoint[]> {
    const { store, prices, clock, config } = this.ctx;
    const now = clock.now();
    const { db } = store;
    const account = await readPaperAccount(db, actor.accountId, config.paperStartingCash);
    const positions = await positionsOf(db, actor.accountId);
    const opened = await db.selectFrom('accounts').select('created_at').where('id', '=', actor.accountId).executeTakeFirstOrThrow();
    const fills = await db
      .selectFrom('fills')
      .select(['symbol', 'side', 'quantity', 'notional', 'at'])
      .where('account_id', '=', actor.accountId)
      .orderBy('id', 'desc')
      .limit(MAX_FILLS)
      .execute();

    let cash = account.cash;
    const held = new Map(positions.map((p) => [p.symbol, p.quantity]));
    const priced = (at: Date): ValuePoint => {
      const open: Position[] = [...held]
        .filter(([, q]) => !q.isZero())
        .map(([symbol, quantity]) => ({ symbol, quantity, average_cost: new D(0), updated_at: at }));
      const valuation = value(prices, cash, open, at);
      return { at: at.toISOString(), value: num(valuation.total), cash: num(cash) };
    };
    const points = [priced(now)];
    for (const fill of fills) {
      const at = new Date(fill.at);
      points.push(priced(at));
      const sign = fill.side === 'buy' ? 1 : -1;
      cash = cash.plus(dec(fill.notional).times(sign));
      held.set(fill.symbol, (held.get(fill.symbol) ?? new D(0)).minus(dec(fill.quantity).times(sign)));
    }
    const start = fills.length < MAX_FILLS ? new Date(opened.created_at) : new Date(fills.at(-1)!.at);
    if (start < now) points.push(priced(start));
    points.reverse();
    if (points.length <= MAX_POINTS) return points;
    const step = (points.length - 1) / (MAX_POINTS - 1);
    return Array.from({ length: MAX_POINTS }, (_, i) => points[Math.round(i * step)]!);
  }
}
