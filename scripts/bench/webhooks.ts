// The webhooks case of `make bench` (issue 22): approvals at 200/s over 20 accounts on a service of its own, in
// alternating phases without webhook endpoints (each account's endpoint disabled) and with one per account delivering
// order.submitted and order.filled to a local receiver that answers 200 at once — three pairs, so that a slow moment
// of the machine weighs on both sides alike; the latencies of each side are pooled. It reports the delivery lag (the
// approval's answer, sent once its transaction committed, to the receiver holding the event), events lost and
// delivered twice, and the approvals' p99 with endpoints against without.
import { fork } from 'node:child_process';
import { setPriority } from 'node:os';
import type { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Db } from '../../db/connect.js';
import { SimulatedPriceSource } from '../../src/services/market-data.js';
import { dec } from '../../src/services/money.js';
import { storeIdea } from '../../src/services/orders/propose.js';
import { Store } from '../../src/services/store.js';
import { WebhookEndpoints } from '../../src/services/webhooks/endpoints.js';
import { systemClock } from '../../src/clock.js';
import { fixedRate, percentile, type Latencies } from './load.js';
import { backendCpu, cpuMs, holderPolicy, request, startService, track, type Service } from './support.js';
import type { Trader } from './approvals.js';

export interface WebhooksRun {
  withoutEndpoint: Latencies;
  withEndpoint: Latencies;
  /** Delivery lag of order.filled, ms: from the approval's answer to the receiver having the event. */
  lag: { p50: number; p99: number; max: number; count: number };
  expected: number;
  lost: number;
  duplicated: number;
  /** The attempts the worker logged, by outcome (the status code, or the error of an attempt without one). */
  attempts: Record<string, number>;
  /** CPU time per approval (ms) in each side's phases: the service, PostgreSQL's backends and the receiver. */
  cpuPerApprovalMs: Record<'without' | 'with', { service: number; postgres: number; receiver: number }>;
}

const ACCOUNTS = 20;
const RATE = 200;

const PAIRS = 3;

export async function webhooksRun(
  databaseUrl: string,
  db: Db,
  newTrader: (service: Service) => Promise<Trader>,
  seconds: number,
): Promise<WebhooksRun> {
  const received = new Map<string, { at: number; type: string; orderId: string }[]>();
  const receiver = fork(fileURLToPath(new URL('./receiver.mjs', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  track(receiver);
  // The receiver stands for a partner's server, on its own machine in any deployment: here it shares the two cores,
  // so it runs at the lowest CPU priority (nice 19) and the approvals' latency measures what events cost the service
  // and its database, not the receiver's own work; its CPU time is still reported (cpuPerApprovalMs.receiver).
  try {
    setPriority(receiver.pid!, 19);
  } catch {
    // not permitted here: it keeps the bench's priority
  }
  const port = await new Promise<number>((resolve, reject) => {
    receiver.once('message', (message) => resolve((message as { port: number }).port));
    receiver.once('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
  });
  const hook = `http://127.0.0.1:${port}/hooks`;
  /** Adds what the receiver got since the last call to `received`. */
  const collect = () =>
    new Promise<void>((resolve) => {
      receiver.once('message', (message) => {
        for (const r of (message as { received: { id: string; at: number; type: string; orderId: string }[] }).received)
          received.set(r.id, [...(received.get(r.id) ?? []), r]);
        resolve();
      });
      receiver.send('collect');
    });
  const service = await startService(
    databaseUrl,
    { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn' },
    process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [],
  );
  try {
    const perPhase = RATE * Math.max(4, Math.ceil(seconds / 2));
    const perAccount = Math.ceil((2 * PAIRS * perPhase + 2 * RATE) / ACCOUNTS) + 1;
    const disclosure = JSON.parse(
      (await request(`${service.url}/v1/disclosures/current`, { headers: { Authorization: `Bearer ${(await newTrader(service)).token}` } }))
        .body,
    ) as { version: string };
    const body = JSON.stringify(holderPolicy(disclosure.version));
    const traders: (Trader & { orders: string[] })[] = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const trader = await newTrader(service);
      const policy = await request(`${service.url}/v1/policies`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${trader.token}`, 'Content-Type': 'application/json' },
        body,
      });
      if (policy.status !== 201) throw new Error(`policy: ${policy.status} ${policy.body}`);
      // Distinct quantities, so no approval is a duplicate of another.
      const idea = await storeIdea(db.kysely, new SimulatedPriceSource(), new Date(), {
        accountId: trader.accountId,
        clientId: trader.clientId,
        mode: 'rebalance',
        market: 'US',
        rationale: 'bench set-up',
        trades: Array.from({ length: perAccount }, (_, i) => ({
          market: 'US',
          symbol: 'VTI',
          side: 'buy' as const,
          quantity: dec((0.1 + i / 100_000).toFixed(5)),
          order_type: 'market' as const,
          limit_price: null,
        })),
      });
      traders.push({ ...trader, orders: idea.orders.map((o) => o.id) });
    }
    let next = 0;
    const answeredAt = new Map<string, number>();
    const approve = async (_: number, agent: Agent) => {
      const n = next++;
      const trader = traders[n % ACCOUNTS]!;
      const id = trader.orders[Math.floor(n / ACCOUNTS)]!;
      const status = (
        await request(`${service.url}/v1/orders/${id}/approve`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${trader.token}` },
          agent,
        })
      ).status;
      answeredAt.set(id, performance.timeOrigin + performance.now());
      return status;
    };
    // Two seconds not measured first: the service's first second is slower (its own row in the approvals case).
    await fixedRate(2 * RATE, RATE, approve);
    const endpoints = new WebhookEndpoints(new Store(db.kysely), systemClock, { allowPrivateNetworks: true, retentionDays: 30 });
    for (const trader of traders) await endpoints.create(trader.accountId, { url: hook, eventTypes: ['order.submitted', 'order.filled'] });
    const accounts = traders.map((t) => t.accountId);
    const enable = (enabled: boolean) =>
      db.kysely.updateTable('webhook_endpoints').set({ enabled }).where('account_id', 'in', accounts).execute();
    const without: number[] = [];
    const withEndpoints: number[] = [];
    const statuses = { without: {} as Record<string, number>, with: {} as Record<string, number> };
    const count = (into: Record<string, number>, from: Record<string, number>) => {
      for (const [status, n] of Object.entries(from)) into[status] = (into[status] ?? 0) + n;
    };
    // The approvals made while endpoints were enabled: their events are owed.
    const approvedWith = new Set<string>();
    const owedEvents = async () => {
      const events = await db.kysely
        .selectFrom('events')
        .select(['id', sql<string>`data->>'id'`.as('order_id')])
        .where('type', 'in', ['order.submitted', 'order.filled'])
        .where('account_id', 'in', accounts)
        .execute();
      return events.filter((e) => approvedWith.has(e.order_id));
    };
    const database = new URL(databaseUrl).pathname.slice(1);
    const cpu = { without: { service: 0, postgres: 0, receiver: 0 }, with: { service: 0, postgres: 0, receiver: 0 } };
    /** Runs a phase, adding the CPU time it took (ms) to `into`. */
    const measured = async <T>(into: { service: number; postgres: number; receiver: number }, phase: () => Promise<T>) => {
      const before = { service: cpuMs(service.pid), receiver: cpuMs(receiver.pid!), backends: await backendCpu(db, database) };
      const result = await phase();
      into.service += cpuMs(service.pid) - before.service;
      into.receiver += cpuMs(receiver.pid!) - before.receiver;
      for (const [pid, after] of await backendCpu(db, database)) into.postgres += after - (before.backends.get(pid) ?? 0);
      return result;
    };
    for (let pair = 0; pair < PAIRS; pair++) {
      await enable(false);
      count(statuses.without, (await measured(cpu.without, () => fixedRate(perPhase, RATE, approve, without))).statuses);
      await enable(true);
      const firstWith = next;
      count(statuses.with, (await measured(cpu.with, () => fixedRate(perPhase, RATE, approve, withEndpoints))).statuses);
      for (let n = firstWith; n < next; n++) approvedWith.add(traders[n % ACCOUNTS]!.orders[Math.floor(n / ACCOUNTS)]!);
      // The next phase disables the endpoints: first the receiver has every event owed so far (bounded wait).
      const deadline = performance.now() + 60_000;
      while (performance.now() < deadline && (await collect(), await owedEvents()).some((e) => !received.has(e.id)))
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const summary = (samples: number[], byStatus: Record<string, number>): Latencies => {
      samples.sort((a, b) => a - b);
      return {
        offeredPerSecond: RATE,
        completed: samples.length,
        statuses: byStatus,
        p50: percentile(samples, 50),
        p99: percentile(samples, 99),
        achievedPerSecond: NaN,
      };
    };
    const withoutEndpoint = summary(without, statuses.without);
    const withEndpoint = summary(withEndpoints, statuses.with);
    await collect();
    const owed = await owedEvents();
    const lost = owed.filter((e) => !received.has(e.id)).length;
    const duplicated = [...received.values()].filter((deliveries) => deliveries.length > 1).length;
    const lags: number[] = [];
    for (const [first] of received.values()) {
      if (first!.type === 'order.filled' && answeredAt.has(first!.orderId))
        lags.push(Math.max(0, first!.at - answeredAt.get(first!.orderId)!));
    }
    lags.sort((a, b) => a - b);
    const outcomes = await db.kysely
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .select([sql<string>`coalesce(a.status_code::text, a.error)`.as('outcome'), sql<number>`count(*)::int`.as('count')])
      .where(
        'd.account_id',
        'in',
        traders.map((t) => t.accountId),
      )
      .groupBy(sql`coalesce(a.status_code::text, a.error)`)
      .execute();
    return {
      withoutEndpoint,
      withEndpoint,
      lag: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags[lags.length - 1] ?? NaN, count: lags.length },
      expected: owed.length,
      lost,
      duplicated,
      attempts: Object.fromEntries(outcomes.map((o) => [o.outcome, o.count])),
      cpuPerApprovalMs: Object.fromEntries(
        Object.entries(cpu).map(([side, c]) => [
          side,
          Object.fromEntries(Object.entries(c).map(([k, v]) => [k, Math.round((100 * v) / (PAIRS * perPhase)) / 100])),
        ]),
      ) as WebhooksRun['cpuPerApprovalMs'],
    };
  } finally {
    await service.stop();
    receiver.kill();
  }
}
