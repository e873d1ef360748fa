import type { Transaction } from 'kysely';
import type { components } from '../../../generated/api.js';
import type { Database } from '../../../db/schema.js';
import { newId } from '../../ids.js';
import { policyCheck, worstCaseNotional, type FailedCheck, type ProposedTrade } from '../checks.js';
import type { ServiceContext } from '../context.js';
import { readPaperAccount, PAPER_CURRENCY } from '../ledger.js';
import { accountState } from './account-state.js';
import { viewsOf, type Order } from './views.js';

type Policy = components['schemas']['Policy'];

/** How long a proposed order waits for a decision before it expires. */
export const PROPOSAL_TTL_MS = 24 * 60 * 60 * 1000;

/** The policy check a trade must pass to be proposed at all (the risk gate runs again at approval). */
export async function checkProposal(trx: Transaction<Database>, ctx: ServiceContext, accountId: string, policy: Policy, trade: ProposedTrade): Promise<FailedCheck[]> {
  const now = ctx.clock.now();
  const account = await readPaperAccount(trx, accountId, ctx.config.paperStartingCash);
  const state = await accountState(trx, ctx.prices, accountId, account.cash, now);
  return policyCheck(trade, ctx.prices.quote(trade.symbol, now), policy, state);
}

/** Stores trades as `proposed` orders of an idea, each with its creation event. */
export async function proposeOrders(
  trx: Transaction<Database>,
  ctx: ServiceContext,
  input: { accountId: string; clientId: string; ideaId: string; trades: ProposedTrade[] },
): Promise<Order[]> {
  if (input.trades.length === 0) return [];
  const now = ctx.clock.now();
  // Ids carry wall-clock creation time (one millisecond apart within an idea), so lists run newest first even
  // under a pinned service clock.
  const createdAt = Date.now();
  const rows = input.trades.map((trade, index) => ({
    id: newId('ord', createdAt + index),
    account_id: input.accountId,
    idea_id: input.ideaId,
    market: trade.market,
    currency: PAPER_CURRENCY,
    symbol: trade.symbol,
    side: trade.side,
    quantity: trade.quantity.toFixed(),
    order_type: trade.order_type,
    limit_price: trade.limit_price?.toFixed() ?? null,
    notional: worstCaseNotional(trade, ctx.prices.quote(trade.symbol, now).price).toFixed(),
    status: 'proposed' as const,
    expires_at: new Date(now.getTime() + PROPOSAL_TTL_MS),
    created_at: now,
    updated_at: now,
  }));
  const inserted = await trx.insertInto('orders').values(rows).returningAll().execute();
  await trx
    .insertInto('order_events')
    .values(rows.map((r) => ({ order_id: r.id, account_id: r.account_id, from_status: null, to_status: 'proposed', at: now, client_id: input.clientId, reason: 'proposed by an idea' })))
    .execute();
  const byId = new Map(inserted.map((r) => [r.id, r]));
  return viewsOf(trx, rows.map((r) => byId.get(r.id)!));
}
