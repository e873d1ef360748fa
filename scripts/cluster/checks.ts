// The checks of `make cluster-test` after its traffic: a per-address limit exact through the proxy whatever
// X-Forwarded-For the client writes, each keyed approval's effect once, each webhook delivered once.
import { sql } from 'kysely';
import { Agent } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Db } from '../../db/connect.js';
import type { Receiver } from '../../test/support/webhook-receiver.js';
import { request } from '../bench/support.js';
import type { KeyedApproval, Trader } from './traffic.js';
import { WEBHOOK_TYPES } from './traffic.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/**
 * RATE_LIMIT_PER_MINUTE (300 a minute per address and route, the default) through HAProxy: `total` requests to one
 * route from one address that nothing else uses, each with a different spoofed X-Forwarded-For (and Forwarded):
 * exactly `total - 300` are 429. A proxy that appended to the client's header, or a service that believed the
 * client's entry, would spread them over `total` addresses and refuse none.
 */
export async function limitCheck(url: string, trader: Trader, total: number, limit: number): Promise<Check> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8, localAddress: '127.0.2.1' });
  const statuses = new Map<number, number>();
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < total) {
          const n = next++;
          const spoofed = `203.0.113.${n % 250}`;
          const answer = await request(`${url}/v1/portfolio?market=US`, {
            headers: { Authorization: `Bearer ${trader.token}`, 'X-Forwarded-For': spoofed, Forwarded: `for=${spoofed}` },
            agent,
          }).catch((error: Error) => ({ status: 0, body: error.message }));
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  const refused = statuses.get(429) ?? 0;
  const served = statuses.get(200) ?? 0;
  const expected = total - limit;
  const shown = [...statuses].map(([status, count]) => `${count} × ${status}`).join(', ');
  return {
    name: 'limits exact through the proxy',
    ok: refused === expected && served === limit,
    detail: `${total} requests from 127.0.2.1 with spoofed X-Forwarded-For: ${shown} (expected ${limit} × 200, ${expected} × 429)`,
  };
}

/** Every keyed approval's order approved exactly once (one `submitted`, one `filled` event), each answer a fill. */
export async function keyedCheck(db: Db, approvals: KeyedApproval[], replays: number): Promise<Check> {
  const orders = approvals.map((a) => a.order);
  const distinct = new Set(orders).size;
  const rows =
    orders.length === 0
      ? []
      : (
          await sql<{ order_id: string; submitted: number; filled: number; status: string }>`
            select o.id as order_id, o.status,
              (select count(*) from order_events e where e.order_id = o.id and e.to_status = 'submitted')::int as submitted,
              (select count(*) from order_events e where e.order_id = o.id and e.to_status = 'filled')::int as filled
            from orders o where o.id = any(${orders})`.execute(db.kysely)
        ).rows;
  const wrong = rows.filter((r) => r.status !== 'filled' || r.submitted !== 1 || r.filled !== 1);
  const notFilled = approvals.filter((a) => (JSON.parse(a.body) as { status?: string }).status !== 'filled').length;
  return {
    name: 'each keyed effect once',
    ok: distinct === approvals.length && rows.length === distinct && wrong.length === 0 && notFilled === 0 && approvals.length > 0,
    detail:
      `${approvals.length} keyed approvals of ${distinct} orders: ${rows.length - wrong.length} filled with exactly one submitted and one ` +
      `filled event${wrong.length ? `, ${wrong.length} not (${JSON.stringify(wrong.slice(0, 3))})` : ''}; ${replays} replays answered ` +
      `from their key${notFilled ? `; ${notFilled} answers were not a fill` : ''}`,
  };
}

/**
 * Every event of the subscribed types of the test's accounts delivered exactly once: the receiver counts the
 * deliveries of each webhook-id, and the database has each delivery succeeded (a receiver that got an attempt the
 * service did not record would see it again once its lease ends; it would stay pending here). Waits up to
 * `timeoutMs` for the last ones.
 */
export async function webhookCheck(db: Db, receiver: Receiver, traders: Trader[], timeoutMs: number): Promise<Check> {
  const accounts = traders.map((t) => t.accountId);
  const expected = async () =>
    (
      await sql<{ id: string }>`select id from events where account_id = any(${accounts}) and type = any(${WEBHOOK_TYPES})`.execute(
        db.kysely,
      )
    ).rows.map((r) => r.id);
  const deadline = Date.now() + timeoutMs;
  let ids = await expected();
  for (;;) {
    const received = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    if (ids.every((id) => received.has(id)) || Date.now() > deadline) break;
    await delay(250);
    ids = await expected();
  }
  const perId = new Map<string, number>();
  for (const r of receiver.received) perId.set(String(r.headers['webhook-id']), (perId.get(String(r.headers['webhook-id'])) ?? 0) + 1);
  const missing = ids.filter((id) => !perId.has(id));
  const twice = [...perId].filter(([, count]) => count > 1);
  const unknown = [...perId.keys()].filter((id) => !ids.includes(id));
  const deliveries = (
    await sql<{ status: string; attempts: number; count: number }>`
      select status, attempts, count(*)::int as count from webhook_deliveries where account_id = any(${accounts})
      group by status, attempts`.execute(db.kysely)
  ).rows;
  const states = deliveries.map((d) => `${d.count} ${d.status} after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`).join(', ');
  // Retried attempts would be reported above; what counts is that the receiver saw each event once and each succeeded.
  const allSucceeded = deliveries.every((d) => d.status === 'succeeded');
  return {
    name: 'each webhook once',
    ok: ids.length > 0 && missing.length === 0 && twice.length === 0 && unknown.length === 0 && allSucceeded,
    detail:
      `${ids.length} events of ${WEBHOOK_TYPES.join(' and ')}: ${receiver.received.length} deliveries received, ` +
      `${missing.length} missing, ${twice.length} delivered more than once, ${unknown.length} unknown; in the database ${states || 'none'}`,
  };
}
