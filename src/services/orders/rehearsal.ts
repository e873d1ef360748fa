// The approval path rehearsed before the service says ready (server.ts). A fresh process pays on its first approvals
// for what later ones find done: V8 runs their JavaScript in its interpreter until it has seen enough of it to optimise
// (a few hundred approvals), and each pooled PostgreSQL connection loads the catalogue entries of the tables the
// approval touches and plans each of its statements anew on their first executions (a prepared statement's plan is
// kept from the sixth). Measured on two cores: the service's first second at 200 approvals/s used 1.4 times the CPU of
// the seconds after it, and its p99 was 170-220 ms against their 20-90 ms.
import { randomBytes } from 'node:crypto';
import { authorize, type Origin } from '../../auth/authorize.js';
import type { Principal } from '../../auth/principal.js';
import type { Clock } from '../../clock.js';
import { leaveUncounted } from '../../observability/metrics.js';
import { ProblemError } from '../../problems.js';
import { ensureAccount } from '../accounts.js';
import { PAPER_MARKETS } from '../brokers.js';
import { currentDisclosure } from '../disclosures.js';
import type { PolicyService } from '../policies.js';
import type { Store } from '../store.js';
import type { OrderService } from './service.js';
import type { PriceSource } from '../market-data.js';
import { dec } from '../money.js';
import { storeIdea } from './propose.js';

/** What a rehearsal uses of the services (this module is one of theirs: services/index.ts binds it). */
interface Services {
  transaction<T>(work: (bound: { policies: PolicyService; orders: OrderService }, store: Store) => Promise<T>): Promise<T>;
}

export interface RehearsalPlan {
  /** Approvals to rehearse, at least (rounded up to whole rounds). */
  approvals: number;
  /** Transactions at once: the pool's connections, so that every connection runs the approval's statements. */
  connections: number;
  /** No approval starts after this many milliseconds: the rehearsal ends then, whatever remains of it. */
  deadlineMs: number;
}

/**
 * Approvals per transaction. While a transaction that wrote is open, the event feed and the webhooks wait for it (the
 * outbox's commit-safe horizon, events/service.ts): each is short.
 */
const PER_TRANSACTION = 10;
const ORIGIN: Origin = { ip: '127.0.0.1', userAgent: 'warm-up' };

/** Thrown to roll a rehearsal's transaction back, with the approvals it ran. */
class RolledBack extends Error {
  constructor(readonly approvals: number) {
    super('the rehearsal is rolled back');
  }
}

/**
 * Runs the approval path's own code — the use cases, their statements, the checks, the paper broker's fill and the
 * ledger's writes — on throwaway accounts, each made inside a transaction that is then rolled back: nothing of it is
 * stored (no account, policy, order, event, ledger row or idempotency record), counted (leaveUncounted) or sent (commit
 * hooks never run). Each account is new and its own, so instances starting together on one database lock nothing of
 * each other's or of anyone's. Answers the approvals rehearsed.
 */
export async function rehearseApprovals(
  services: Services,
  ctx: { clock: Clock; prices: PriceSource },
  plan: RehearsalPlan,
): Promise<number> {
  const market = PAPER_MARKETS[0];
  const symbol = market === undefined ? undefined : ctx.prices.instruments(market)[0]?.symbol;
  if (market === undefined || symbol === undefined) return 0;
  const rounds = Math.ceil(plan.approvals / (plan.connections * PER_TRANSACTION));
  const until = performance.now() + plan.deadlineMs;
  let rehearsed = 0;
  for (let round = 0; round < rounds && performance.now() < until; round++) {
    // Every transaction of a round ends (rolled back) before the next round or the start goes on.
    const ended = await Promise.allSettled(
      Array.from({ length: plan.connections }, () => rehearse(services, ctx, { market, symbol, until })),
    );
    for (const result of ended) {
      if (result.status === 'rejected') throw result.reason;
      rehearsed += result.value;
    }
  }
  return rehearsed;
}

async function rehearse(
  services: Services,
  ctx: { clock: Clock; prices: PriceSource },
  { market, symbol, until }: { market: string; symbol: string; until: number },
): Promise<number> {
  try {
    await services.transaction(async (bound, store) => {
      leaveUncounted(store.db);
      const now = ctx.clock.now();
      const name = `warm-up-${randomBytes(8).toString('hex')}`;
      const account = await ensureAccount(store.db, `${name}@warm-up.invalid`, 'Warm-up');
      const principal: Principal = {
        accountId: account.id,
        clientId: name,
        scopes: new Set(['read', 'write', 'trade']),
        generation: 1,
        tokenId: name,
        expiresAt: now.getTime(),
      };
      await bound.policies.create(authorize(principal, 'createPolicy', ORIGIN), {
        limits: {
          max_order_notional: 1e6,
          max_position_weight: 1,
          max_daily_notional: 1e9,
          max_daily_loss: 1e9,
          allowed_markets: [market],
        },
        target_allocation: [{ symbol, weight: 1 }],
        consent: { disclosure_version: currentDisclosure().version, accepted: true, signer_name: 'Warm-up' },
      });
      // Distinct quantities: no order is a duplicate of another.
      const idea = await storeIdea(store.db, ctx.prices, now, {
        accountId: account.id,
        clientId: name,
        mode: 'rebalance',
        market,
        rationale: 'warm-up',
        trades: Array.from({ length: PER_TRANSACTION }, (_, i) => ({
          market,
          symbol,
          side: 'buy' as const,
          quantity: dec(((i + 1) / 100).toFixed(2)),
          order_type: 'market' as const,
          limit_price: null,
        })),
      });
      const actor = authorize(principal, 'approveOrder', ORIGIN);
      let approved = 0;
      for (const order of idea.orders) {
        if (performance.now() >= until) break;
        await bound.orders.approve(actor, order.id).catch(refused);
        approved++;
      }
      throw new RolledBack(approved);
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.approvals;
    throw error;
  }
  return 0;
}

/** An approval the checks refuse (a global kill switch engaged, a limit) has still run the path: the rehearsal goes on. */
function refused(error: unknown): void {
  if (!(error instanceof ProblemError)) throw error;
}
