// The books of a connected account mirror its broker: cash and positions as the broker last stated them. Every
// decision reads the broker first and writes what it read here (under the books' lock), so the service's readers —
// the portfolio, ideas, the checks, reports — see the broker's account; fills booked in between move the books as
// the broker moves the account, and the next read says whether they still match.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { BrokerAccount, BrokerPosition } from '../../brokers/port.js';
import { dec, type Dec } from '../money.js';

/** Where the books differed from the broker when it was read: cash and each position's quantity, before → after. */
export interface Drift {
  cash?: { books: string; broker: string };
  positions: { symbol: string; books: string; broker: string }[];
}

const same = (a: Dec, b: Dec) => a.minus(b).abs().lessThan('0.000001');

/**
 * Writes the broker's cash and positions into the account's books (the caller holds the books' lock) and answers
 * how they differed, nothing when they matched.
 */
export async function mirrorBooks(
  trx: Transaction<Database>,
  accountId: string,
  account: BrokerAccount,
  positions: BrokerPosition[],
  now: Date,
): Promise<Drift | undefined> {
  const books = await trx.selectFrom('positions').select(['symbol', 'quantity']).where('account_id', '=', accountId).execute();
  const cash = await trx.selectFrom('paper_accounts').select('cash').where('account_id', '=', accountId).executeTakeFirst();
  const drift: Drift = { positions: [] };
  if (cash && !same(dec(cash.cash), account.cash)) drift.cash = { books: dec(cash.cash).toFixed(2), broker: account.cash.toFixed(2) };
  const held = new Map(books.map((b) => [b.symbol, dec(b.quantity)]));
  const stated = new Map(positions.map((p) => [p.symbol, p.quantity]));
  for (const symbol of new Set([...held.keys(), ...stated.keys()])) {
    const mine = held.get(symbol) ?? dec(0);
    const theirs = stated.get(symbol) ?? dec(0);
    if (!same(mine, theirs)) drift.positions.push({ symbol, books: mine.toFixed(), broker: theirs.toFixed() });
  }
  await trx
    .insertInto('paper_accounts')
    .values({ account_id: accountId, currency: account.currency, cash: account.cash.toFixed(), updated_at: now })
    .onConflict((c) => c.column('account_id').doUpdateSet({ cash: account.cash.toFixed(), currency: account.currency, updated_at: now }))
    .execute();
  const gone = [...held.keys()].filter((symbol) => !stated.has(symbol));
  if (gone.length > 0) await trx.deleteFrom('positions').where('account_id', '=', accountId).where('symbol', 'in', gone).execute();
  const rows = positions
    .filter((p) => !p.quantity.isZero())
    .map((p) => ({
      account_id: accountId,
      symbol: p.symbol,
      quantity: p.quantity.toFixed(),
      average_cost: p.averageCost.toFixed(),
      updated_at: now,
    }));
  if (rows.length > 0)
    await trx
      .insertInto('positions')
      .values(rows)
      .onConflict((c) =>
        c.columns(['account_id', 'symbol']).doUpdateSet({
          quantity: sql`excluded.quantity`,
          average_cost: sql`excluded.average_cost`,
          updated_at: sql`excluded.updated_at`,
        }),
      )
      .execute();
  return drift.cash || drift.positions.length > 0 ? drift : undefined;
}
