// The traffic of `make cluster-test`: accounts made for it (a client, a policy, proposed orders, a webhook endpoint on
// the test's receiver), then an open-loop mix through HAProxy at a fixed rate — reads, keyed approvals and replays of
// them, goal feasibility, token requests — from many loopback addresses (HAProxy sets X-Forwarded-For to each, so
// the per-address limits count each apart, as they would real clients), every answer checked.
import { Agent } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Db } from '../../db/connect.js';
import type { Services } from '../../src/services/index.js';
import { SimulatedPriceSource } from '../../src/services/market-data.js';
import { dec } from '../../src/services/money.js';
import { storeIdea } from '../../src/services/orders/propose.js';
import { holderPolicy, request } from '../bench/support.js';

export interface Trader {
  accountId: string;
  clientId: string;
  secret: string;
  token: string;
  orders: string[];
}

/** The event types the test's receiver subscribes to: an approval that fills writes one of each. */
export const WEBHOOK_TYPES = ['order.submitted', 'order.filled'];
const SCOPES = 'read write trade';
const basic = (t: Pick<Trader, 'clientId' | 'secret'>) => `Basic ${Buffer.from(`${t.clientId}:${t.secret}`).toString('base64')}`;
const tokenBody = `grant_type=client_credentials&scope=${encodeURIComponent(SCOPES)}`;

/**
 * A loopback address of its own per agent: 127.0.1.1, 127.0.1.2, ... (all of 127.0.0.0/8 is this machine). An idle
 * pooled connection is closed after 4 s, before HAProxy closes it (timeout http-keep-alive 10s; the service announces
 * 5 s): a client that writes on a connection as the server closes it gets a reset, whatever the server.
 */
export const sourceAgent = (n: number) => new Agent({ keepAlive: true, maxSockets: 16, timeout: 4000, localAddress: `127.0.1.${n}` });

/** `count` accounts, each with its client, a policy, `orders` proposed orders and a webhook endpoint on `hooks`. */
export async function prepareTraders(
  services: Services,
  db: Db,
  url: string,
  hooks: string,
  count: number,
  orders: number,
): Promise<Trader[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const client = await services.clients.create({ accountEmail: `cluster-test-${i + 1}@example.com`, scopes: SCOPES.split(' ') });
      await services.webhooks.create(client.account_id, { url: hooks, eventTypes: WEBHOOK_TYPES });
      const trader = { accountId: client.account_id, clientId: client.client_id, secret: client.client_secret };
      const issued = await request(`${url}/oauth/token`, {
        method: 'POST',
        headers: { Authorization: basic(trader), 'Content-Type': 'application/x-www-form-urlencoded' },
        body: tokenBody,
      });
      if (issued.status !== 200) throw new Error(`token: ${issued.status} ${issued.body}`);
      const token = (JSON.parse(issued.body) as { access_token: string }).access_token;
      const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
      const disclosure = JSON.parse((await request(`${url}/v1/disclosures/current`, { headers: auth })).body) as { version: string };
      const policy = await request(`${url}/v1/policies`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify(holderPolicy(disclosure.version, 'Cluster Test', { max_position_weight: 0.8, max_daily_notional: 500_000 })),
      });
      if (policy.status !== 201) throw new Error(`policy: ${policy.status} ${policy.body}`);
      // Small distinct quantities (a tenth of a share): cash stays ample, and no two approvals are alike.
      const idea = await storeIdea(db.kysely, new SimulatedPriceSource(), new Date(), {
        accountId: trader.accountId,
        clientId: trader.clientId,
        mode: 'rebalance',
        market: 'US',
        rationale: 'cluster test',
        trades: Array.from({ length: orders }, (_, n) => ({
          market: 'US',
          symbol: n % 2 ? 'BND' : 'VTI',
          side: 'buy' as const,
          quantity: dec((0.1 + n / 100_000).toFixed(5)),
          order_type: 'market' as const,
          limit_price: null,
        })),
      });
      return { ...trader, token, orders: idea.orders.map((o: { id: string }) => o.id) };
    }),
  );
}

type Kind = 'read' | 'approval' | 'replay' | 'feasibility' | 'token';
/** Twenty requests in turn: 12 reads, 3 keyed approvals and 1 replay of one, 2 goal feasibility (1 keyed), 2 tokens. */
const MIX: Kind[] = [
  ...['read', 'approval', 'read', 'feasibility', 'read', 'token', 'read', 'approval', 'read', 'read'],
  ...['replay', 'read', 'feasibility', 'read', 'approval', 'read', 'token', 'read', 'read', 'read'],
] as Kind[];
const READS = ['/v1/portfolio?market=US', '/v1/orders?limit=5', '/v1/policies/current', '/v1/events?limit=5'];
const GOAL = JSON.stringify({ capital: 10_000, target: 25_000, horizon_years: 10, market: 'US', monthly_contribution: 200 });

export interface KeyedApproval {
  key: string;
  order: string;
  trader: Trader;
  status: number;
  body: string;
}

export class Traffic {
  readonly counts = new Map<Kind, number>();
  readonly failures = new Map<string, number>();
  readonly examples: string[] = [];
  readonly approvals: KeyedApproval[] = [];
  replays = 0;
  private replayed = 0;
  sent = 0;
  maxInFlight = 0;
  private inFlight = new Set<Promise<void>>();
  private readonly agents = Array.from({ length: 64 }, (_, i) => sourceAgent(i + 1));
  private next = new Map<Trader, number>();

  constructor(
    private readonly url: string,
    private readonly traders: Trader[],
  ) {}

  get failed(): number {
    return [...this.failures.values()].reduce((a, b) => a + b, 0);
  }

  /** Sends `rate` requests a second until `done()` says stop, then waits for the last answers. */
  async run(rate: number, done: () => boolean): Promise<void> {
    const interval = 1000 / rate;
    let due = performance.now();
    while (!done()) {
      const sending = this.one(this.sent++).finally(() => this.inFlight.delete(sending));
      this.inFlight.add(sending);
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight.size);
      due += interval;
      const wait = due - performance.now();
      if (wait > 0) await delay(wait);
    }
    await Promise.all(this.inFlight);
  }

  private fail(what: string, detail: string): void {
    this.failures.set(what, (this.failures.get(what) ?? 0) + 1);
    if (this.examples.length < 10) this.examples.push(`${what}: ${detail.slice(0, 300)}`);
  }

  private async one(n: number): Promise<void> {
    let kind = MIX[n % MIX.length]!;
    // Each answered approval is replayed at most once, never two replays of one key at a time (the second would be
    // 409 idempotency-key-in-use while the first runs, as documented).
    if (kind === 'replay' && this.replayed >= this.approvals.length) kind = 'read';
    // Each kind takes the accounts and the source addresses in turn.
    const turn = this.counts.get(kind) ?? 0;
    this.counts.set(kind, turn + 1);
    const trader = this.traders[turn % this.traders.length]!;
    const agent = this.agents[turn % this.agents.length]!;
    const auth = { Authorization: `Bearer ${trader.token}` };
    const json = { ...auth, 'Content-Type': 'application/json' };
    try {
      if (kind === 'read') {
        const path = READS[Math.floor(turn / this.agents.length) % READS.length]!;
        const answer = await request(`${this.url}${path}`, { headers: auth, agent });
        if (answer.status !== 200) this.fail(`read ${answer.status}`, `${path} ${answer.body}`);
      } else if (kind === 'approval') {
        const order = trader.orders[this.next.get(trader) ?? 0];
        if (!order) return this.fail('approval', `${trader.accountId} has no proposed order left`);
        this.next.set(trader, (this.next.get(trader) ?? 0) + 1);
        const key = `cluster-test-${n}`;
        const answer = await request(`${this.url}/v1/orders/${order}/approve`, {
          method: 'POST',
          headers: { ...auth, 'Idempotency-Key': key },
          agent,
        });
        if (answer.status !== 200) return this.fail(`approval ${answer.status}`, answer.body);
        this.approvals.push({ key, order, trader, status: answer.status, body: answer.body });
      } else if (kind === 'replay') {
        // An answered keyed approval sent again, as a client that lost the answer would (any instance may get it).
        const first = this.approvals[this.replayed++]!;
        const headers = { Authorization: `Bearer ${first.trader.token}`, 'Idempotency-Key': first.key };
        const answer = await request(`${this.url}/v1/orders/${first.order}/approve`, { method: 'POST', headers, agent });
        this.replays++;
        if (answer.status !== first.status || answer.body !== first.body || answer.headers['idempotent-replayed'] !== 'true') {
          this.fail(`replay ${answer.status}`, `${first.key}: ${answer.body}`);
        }
      } else if (kind === 'feasibility') {
        const keyed: Record<string, string> = turn % 2 === 0 ? { 'Idempotency-Key': `cluster-goal-${n}` } : {};
        const answer = await request(`${this.url}/v1/goals/feasibility`, {
          method: 'POST',
          headers: { ...json, ...keyed },
          body: GOAL,
          agent,
        });
        if (answer.status !== 200) this.fail(`feasibility ${answer.status}`, answer.body);
      } else {
        const answer = await request(`${this.url}/oauth/token`, {
          method: 'POST',
          headers: { Authorization: basic(trader), 'Content-Type': 'application/x-www-form-urlencoded' },
          body: tokenBody,
          agent,
        });
        if (answer.status !== 200) this.fail(`token ${answer.status}`, answer.body);
      }
    } catch (error) {
      this.fail(`${kind} ${(error as NodeJS.ErrnoException).code ?? 'error'}`, (error as Error).message);
    }
  }

  close(): void {
    for (const agent of this.agents) agent.destroy();
  }
}
