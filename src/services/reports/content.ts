import type { components } from '../../../generated/api.js';
import type { ServiceContext } from '../context.js';
import { GLOBAL_SCOPE } from '../kill-switch.js';
import { filledNotional, PAPER_CURRENCY, valueAt, type Queryable } from '../ledger.js';
import { num, roundMoney } from '../money.js';
import { actorOf, eventNames, eventView, type EventActor } from '../orders/views.js';

export type DailyReport = components['schemas']['DailyReport'];
export type ReportContent = Omit<DailyReport, 'id' | 'generated_at'>;
type Decision = components['schemas']['ReportDecision'];
type Outcome = Decision['outcome'];

const OUTCOMES: readonly Outcome[] = ['filled', 'rejected', 'cancelled', 'blocked', 'expired'];
const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day of a `YYYY-MM-DD` date as the half-open interval [start, end). */
export function utcDay(date: string): { start: Date; end: Date } {
  const start = new Date(`${date}T00:00:00.000Z`);
  return { start, end: new Date(start.getTime() + DAY_MS) };
}

const iso = (value: Date | string) => new Date(value).toISOString();

async function countIn(db: Queryable, table: 'ideas' | 'orders', accountId: string, start: Date, end: Date): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('created_at', '>=', start)
    .where('created_at', '<', end)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Orders awaiting a decision at `at`: proposed before it, neither decided nor expired by then. */
async function pendingAt(db: Queryable, accountId: string, at: Date): Promise<number> {
  const row = await db
    .selectFrom('orders as o')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('o.account_id', '=', accountId)
    .where('o.created_at', '<', at)
    .where('o.expires_at', '>', at)
    .where((eb) => {
      const leftProposed = eb
        .selectFrom('order_events as e')
        .select('e.id')
        .whereRef('e.order_id', '=', 'o.id')
        .where('e.to_status', '!=', 'proposed')
        .where('e.at', '<', at);
      return eb.not(eb.exists(leftProposed));
    })
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function policyVersionAt(db: Queryable, accountId: string, end: Date): Promise<number | null> {
  const row = await db
    .selectFrom('policies')
    .select((eb) => eb.fn.max('version').as('version'))
    .where('account_id', '=', accountId)
    .where('created_at', '<', end)
    .executeTakeFirst();
  return row?.version ?? null;
}

async function decisionsIn(db: Queryable, accountId: string, start: Date, end: Date): Promise<Decision[]> {
  const events = await db
    .selectFrom('order_events as e')
    .innerJoin('orders as o', 'o.id', 'e.order_id')
    .select(['e.order_id', 'e.to_status', 'e.at', 'e.client_id', 'e.reason', 'e.failed_checks', 'o.symbol', 'o.side', 'o.quantity', ...eventNames])
    .where('e.account_id', '=', accountId)
    .where('e.to_status', 'in', [...OUTCOMES])
    .where('e.at', '>=', start)
    .where('e.at', '<', end)
    .orderBy('e.at')
    .orderBy('e.id')
    .execute();

  // The paper broker records the fill itself; who decided a filled order is who approved it.
  const filledIds = events.filter((e) => e.to_status === 'filled').map((e) => e.order_id);
  const approvers = new Map<string, { clientId: string | null; actor: EventActor }>();
  if (filledIds.length > 0) {
    const approvals = await db
      .selectFrom('order_events as e')
      .select(['e.order_id', 'e.client_id', ...eventNames])
      .where('e.order_id', 'in', filledIds)
      .where('e.to_status', '=', 'submitted')
      .execute();
    for (const a of approvals) {
      const { actor } = eventView({ ...a, from_status: null, to_status: 'submitted', at: new Date(0), reason: null });
      approvers.set(a.order_id, { clientId: a.client_id, actor });
    }
  }

  return events.map((e) => {
    const own = e.client_id === null ? undefined : { clientId: e.client_id, actor: eventView({ ...e, from_status: null }).actor };
    const decider = own ?? approvers.get(e.order_id);
    return {
      order_id: e.order_id,
      symbol: e.symbol,
      side: e.side,
      quantity: num(e.quantity),
      outcome: e.to_status as Outcome,
      decided_by_client_id: decider?.clientId ?? null,
      decided_by: decider?.actor ?? actorOf(null, null),
      decided_at: iso(e.at),
      reason: e.reason,
      failed_checks: e.to_status === 'blocked' ? ((e.failed_checks) ?? []) : [],
    };
  });
}

async function killSwitchEventsIn(db: Queryable, accountId: string, start: Date, end: Date): Promise<DailyReport['kill_switch_events']> {
  const rows = await db
    .selectFrom('kill_switch_events')
    .selectAll()
    .where('scope', 'in', [accountId, GLOBAL_SCOPE])
    .where('at', '>=', start)
    .where('at', '<', end)
    .orderBy('at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    action: r.action,
    level: r.scope === GLOBAL_SCOPE ? ('global' as const) : ('account' as const),
    at: iso(r.at),
    by: r.by,
    reason: r.reason,
  }));
}

/**
 * What the account did on one UTC date, from stored events only: for a finished day the result never changes
 * (later fills are undone by `valueAt`, prices are a function of time), so regeneration is deterministic.
 * Today's report values the account at `now` instead of midnight.
 */
export async function reportContent(db: Queryable, ctx: ServiceContext, accountId: string, date: string, now: Date): Promise<ReportContent> {
  const { start, end } = utcDay(date);
  const valuedAt = now < end ? now : end;
  const decisions = await decisionsIn(db, accountId, start, end);
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, decisions.filter((d) => d.outcome === o).length])) as Record<Outcome, number>;
  const startValue = await valueAt(db, ctx.prices, accountId, ctx.config.paperStartingCash, start);
  const endValue = await valueAt(db, ctx.prices, accountId, ctx.config.paperStartingCash, valuedAt);
  return {
    date,
    currency: PAPER_CURRENCY,
    policy_version: await policyVersionAt(db, accountId, end),
    ideas_generated: await countIn(db, 'ideas', accountId, start, end),
    orders: { created: await countIn(db, 'orders', accountId, start, end), proposed: await pendingAt(db, accountId, valuedAt), ...counts },
    decisions,
    notional_traded: num(roundMoney(await filledNotional(db, accountId, start, end))),
    start_value: num(roundMoney(startValue.total)),
    end_value: num(roundMoney(endValue.total)),
    pnl: num(roundMoney(endValue.total.minus(startValue.total))),
    risk_gate_blocks: decisions.filter((d) => d.outcome === 'blocked' && d.failed_checks.some((c) => c.check.startsWith('risk.'))).length,
    kill_switch_events: await killSwitchEventsIn(db, accountId, start, end),
    ...(await brokerOf(db, accountId)),
  };
}

/** The broker of a connected account and how its books last compared with it; nothing for a paper account. */
async function brokerOf(db: Queryable, accountId: string): Promise<Pick<DailyReport, 'broker'>> {
  const row = await db
    .selectFrom('broker_connections')
    .select(['broker', 'mirror_read_at', 'mirror_matched_at', 'mirror_drift'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) return {};
  const at = (value: Date | string | null) => (value === null ? null : iso(value));
  return {
    broker: {
      id: row.broker,
      mirror_read_at: at(row.mirror_read_at),
      mirror_matched_at: at(row.mirror_matched_at),
      drift: (row.mirror_drift as NonNullable<DailyReport['broker']>['drift']) ?? null,
    },
  };
}
