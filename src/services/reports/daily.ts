import type { Selectable } from 'kysely';
import type { DailyReportsTable } from '../../../db/tables/trading.js';
import type { Actor } from '../../auth/authorize.js';
import { newId } from '../../ids.js';
import { ProblemError } from '../../problems.js';
import type { ServiceContext } from '../context.js';
import { publish } from '../events/outbox.js';
import { invalidField, NotFoundError } from '../errors.js';
import { expireDue } from '../orders/views.js';
import { keysetPage, type Page } from '../pagination.js';
import { reportContent, utcDay, type DailyReport, type ReportContent } from './content.js';

export type { DailyReport };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar date in `YYYY-MM-DD` form (the contract validates it too; GraphQL and MCP callers may not). */
export function isDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const { start } = utcDay(value);
  return !Number.isNaN(start.getTime()) && start.toISOString().startsWith(value);
}

const NOT_A_DATE = 'must be a date (YYYY-MM-DD)';

const todayOf = (now: Date) => now.toISOString().slice(0, 10);

function notInFuture(date: string, now: Date): void {
  if (date > todayOf(now)) {
    throw new ProblemError('report-date-out-of-range', `${date} is in the future; the latest reportable date is today, ${todayOf(now)} (UTC).`);
  }
}

// jsonb stores keys in its own order; the view restores the contract's, so responses read the same every time.
const inOrder = <T extends object>(value: T, keys: readonly (keyof T)[]): T => Object.fromEntries(keys.map((k) => [k, value[k]])) as T;
const COUNT_KEYS = ['created', 'proposed', 'filled', 'rejected', 'cancelled', 'blocked', 'expired'] as const;
// `decided_by` is absent from reports generated before it existed (regenerating the date adds it).
const DECISION_KEYS = [
  'order_id',
  'symbol',
  'side',
  'quantity',
  'outcome',
  'decided_by_client_id',
  'decided_by',
  'decided_at',
  'reason',
  'failed_checks',
] as const;
const EVENT_KEYS = ['action', 'level', 'at', 'by', 'reason'] as const;

function reportView(row: Selectable<DailyReportsTable>): DailyReport {
  const c = row.content as unknown as ReportContent;
  return {
    id: row.id,
    date: row.date,
    currency: c.currency,
    policy_version: c.policy_version,
    ideas_generated: c.ideas_generated,
    // Reports generated before `created` existed counted creations under `proposed`.
    orders: inOrder({ ...c.orders, created: c.orders.created ?? c.orders.proposed }, COUNT_KEYS),
    decisions: c.decisions.map((d) => inOrder({ ...d, failed_checks: d.failed_checks.map((f) => inOrder(f, ['check', 'message'])) }, DECISION_KEYS)),
    notional_traded: c.notional_traded,
    start_value: c.start_value,
    end_value: c.end_value,
    pnl: c.pnl,
    risk_gate_blocks: c.risk_gate_blocks,
    kill_switch_events: c.kill_switch_events.map((e) => inOrder(e, EVENT_KEYS)),
    ...(c.broker ? { broker: c.broker } : {}),
    generated_at: new Date(row.generated_at).toISOString(),
  };
}

export interface ReportRange {
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}

/** Daily accountability reports: generated on request, deterministic for a finished day. */
export class ReportService {
  constructor(private readonly ctx: ServiceContext) {}

  /**
   * Generates or regenerates the account's report for a UTC date (today included, as a partial day). The report
   * keeps its id across regenerations; only its content (unchanged for a finished day) and generated_at move.
   */
  async generate(actor: Actor<'generateDailyReport'>, date: string): Promise<DailyReport> {
    if (!isDate(date)) throw invalidField('date', NOT_A_DATE);
    const now = this.ctx.clock.now();
    notInFuture(date, now);
    return this.ctx.store.transaction(async (trx) => {
      // Orders that expired unseen get their expiry event (dated when they expired) before the day is read.
      await expireDue(trx, actor.accountId, now);
      const content = JSON.stringify(await reportContent(trx, this.ctx, actor.accountId, date, now));
      const row = await trx
        .insertInto('daily_reports')
        .values({ id: newId('rpt', now.getTime()), account_id: actor.accountId, date, content, generated_at: now })
        .onConflict((c) => c.columns(['account_id', 'date']).doUpdateSet({ content, generated_at: now }))
        .returningAll()
        .executeTakeFirstOrThrow();
      const report = reportView(row);
      await publish(trx, [{ accountId: actor.accountId, type: 'report.generated', at: now, data: report }]);
      return report;
    });
  }

  /** The account's generated report for a date (another account's is simply not found). */
  async get(actor: Actor<'getDailyReport'>, date: string): Promise<DailyReport> {
    const row = isDate(date)
      ? await this.ctx.store.db.selectFrom('daily_reports').selectAll().where('account_id', '=', actor.accountId).where('date', '=', date).executeTakeFirst()
      : undefined;
    if (!row) throw new NotFoundError(`There is no daily report for ${date}; generate it (generateDailyReport).`);
    return reportView(row);
  }

  /** Generated reports, newest date first, within an inclusive date range; keyset-paged on the date. */
  async list(actor: Actor<'listDailyReports'>, range: ReportRange): Promise<Page<DailyReport>> {
    const { from, to } = range;
    const now = this.ctx.clock.now();
    if (from !== undefined && !isDate(from)) throw invalidField('from', NOT_A_DATE);
    if (to !== undefined && !isDate(to)) throw invalidField('to', NOT_A_DATE);
    if (from !== undefined) notInFuture(from, now);
    if (to !== undefined) notInFuture(to, now);
    if (from !== undefined && to !== undefined && from > to) {
      throw new ProblemError('report-date-out-of-range', `from (${from}) is after to (${to}); the range is inclusive and needs from ≤ to.`);
    }
    let query = this.ctx.store.db.selectFrom('daily_reports').selectAll().where('account_id', '=', actor.accountId);
    if (from !== undefined) query = query.where('date', '>=', from);
    if (to !== undefined) query = query.where('date', '<=', to);
    const page = await keysetPage<Selectable<DailyReportsTable>, string>(query, 'date', 'string', range, isDate);
    return { data: page.data.map(reportView), next_cursor: page.next_cursor };
  }
}
