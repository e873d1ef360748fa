// The webhooks case of `make bench` (issue 22): approvals at 200/s over 20 accounts on a service of its own, first
// without any webhook endpoint, then with one per account delivering order.submitted and order.filled to a local
// receiver that answers 200 at once. It reports the delivery lag (the approval's answer, sent once its transaction
// committed, to the receiver holding the event), events lost and delivered twice, and the approvals' p99 with an
// endpoint against without.
import { createServer, type Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import type { Db } from '../../db/connect.js';
import { SimulatedPriceSource } from '../../src/services/market-data.js';
import { dec } from '../../src/services/money.js';
import { storeIdea } from '../../src/services/orders/propose.js';
import { WebhookEndpoints } from '../../src/services/webhooks/endpoints.js';
import { systemClock } from '../../src/clock.js';
import { fixedRate, request, startService, type Latencies, type Service } from './support.js';
import type { Trader } from './approvals.js';

export interface WebhooksRun {
  withoutEndpoint: Latencies;
  withEndpoint: Latencies;
  /** Delivery lag of order.filled, ms: from the approval's answer to the receiver having the event. */
  lag: { p50: number; p99: number; max: number; count: number };
  expected: number;
  lost: number;
  duplicated: number;
}

const ACCOUNTS = 20;
const RATE = 200;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function webhooksRun(databaseUrl: string, db: Db, newTrader: (service: Service) => Promise<Trader>, seconds: number): Promise<WebhooksRun> {
  const received = new Map<string, { at: number; type: string; orderId: string }[]>();
  const receiver: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const id = String(req.headers['webhook-id']);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { type: string; data: { id: string } };
      received.set(id, [...(received.get(id) ?? []), { at, type: body.type, orderId: body.data.id }]);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const service = await startService(databaseUrl, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn' });
  try {
    const perPhase = RATE * seconds;
    const perAccount = Math.ceil((2 * perPhase) / ACCOUNTS) + 1;
    const disclosure = JSON.parse((await request(`${service.url}/v1/disclosures/current`, { headers: { Authorization: `Bearer ${(await newTrader(service)).token}` } })).body) as { version: string };
    const body = JSON.stringify({
      limits: { max_order_notional: 50_000, max_position_weight: 0.9, max_daily_notional: 1_000_000, max_daily_loss: 50_000, allowed_markets: ['US'] },
      target_allocation: [{ symbol: 'VTI', weight: 0.6 }, { symbol: 'BND', weight: 0.4 }],
      consent: { disclosure_version: disclosure.version, accepted: true, signer_name: 'Bench Holder' },
    });
    const traders: (Trader & { orders: string[] })[] = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const trader = await newTrader(service);
      const policy = await request(`${service.url}/v1/policies`, { method: 'POST', headers: { Authorization: `Bearer ${trader.token}`, 'Content-Type': 'application/json' }, body });
      if (policy.status !== 201) throw new Error(`policy: ${policy.status} ${policy.body}`);
      // Distinct quantities, so no approval is a duplicate of another.
      const idea = await storeIdea(db.kysely, new SimulatedPriceSource(), new Date(), {
        accountId: trader.accountId, clientId: trader.clientId, mode: 'rebalance', market: 'US', rationale: 'bench set-up',
        trades: Array.from({ length: perAccount }, (_, i) => ({ market: 'US', symbol: 'VTI', side: 'buy' as const, quantity: dec((0.1 + i / 100_000).toFixed(5)), order_type: 'market' as const, limit_price: null })),
      });
      traders.push({ ...trader, orders: idea.orders.map((o) => o.id) });
    }
    let next = 0;
    const answeredAt = new Map<string, number>();
    const approve = async (_: number, agent: Agent) => {
      const n = next++;
      const trader = traders[n % ACCOUNTS]!;
      const id = trader.orders[Math.floor(n / ACCOUNTS)]!;
      const status = (await request(`${service.url}/v1/orders/${id}/approve`, { method: 'POST', headers: { Authorization: `Bearer ${trader.token}` }, agent })).status;
      answeredAt.set(id, performance.now());
      return status;
    };
    const withoutEndpoint = await fixedRate(perPhase, RATE, approve);
    const endpoints = new WebhookEndpoints(db.kysely, systemClock, true);
    for (const trader of traders) await endpoints.create(trader.accountId, { url: hook, eventTypes: ['order.submitted', 'order.filled'] });
    const firstWith = next;
    const withEndpoint = await fixedRate(perPhase, RATE, approve);
    // Every approval of the second phase makes two events; wait (bounded) for the receiver to have them all.
    const expected = 2 * (withEndpoint.statuses['200'] ?? 0);
    const deadline = performance.now() + 60_000;
    while (received.size < expected && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    // The events owed: those of the second phase's approvals (the first phase's came before any endpoint existed).
    const approvedWith = new Set<string>();
    for (let n = firstWith; n < next; n++) approvedWith.add(traders[n % ACCOUNTS]!.orders[Math.floor(n / ACCOUNTS)]!);
    const events = await db.kysely
      .selectFrom('events')
      .select(['id', sql<string>`data->>'id'`.as('order_id')])
      .where('type', 'in', ['order.submitted', 'order.filled'])
      .where('account_id', 'in', traders.map((t) => t.accountId))
      .execute();
    const owed = events.filter((e) => approvedWith.has(e.order_id));
    const lost = owed.filter((e) => !received.has(e.id)).length;
    const duplicated = [...received.values()].filter((deliveries) => deliveries.length > 1).length;
    const lags: number[] = [];
    for (const [first] of received.values()) {
      if (first!.type === 'order.filled' && answeredAt.has(first!.orderId)) lags.push(Math.max(0, first!.at - answeredAt.get(first!.orderId)!));
    }
    lags.sort((a, b) => a - b);
    return {
      withoutEndpoint,
      withEndpoint,
      lag: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags[lags.length - 1] ?? NaN, count: lags.length },
      expected: owed.length,
      lost,
      duplicated,
    };
  } finally {
    await service.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}
