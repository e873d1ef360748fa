import { expect } from 'chai';
import { storeIdea } from '../../src/services/orders/propose.js';
import { dec } from '../../src/services/money.js';
import { AdjustablePrices } from './prices.js';
import { startTestServer, type TestServer } from './server.js';

export interface PolicyOverrides {
  limits?: Record<string, unknown>;
  target_allocation?: { symbol: string; weight: number }[];
}

/** A policy's request body (60/40 VTI and BND under wide limits, and `overrides`), consenting to the current disclosure. */
export async function policyBody(server: TestServer, token: string, overrides: PolicyOverrides = {}) {
  const disclosure = await server.api.get('/v1/disclosures/current', { token });
  return {
    limits: {
      max_order_notional: 50_000,
      max_position_weight: 0.8,
      max_daily_notional: 500_000,
      max_daily_loss: 50_000,
      allowed_markets: ['US'],
      ...overrides.limits,
    },
    target_allocation: overrides.target_allocation ?? [
      { symbol: 'VTI', weight: 0.6 },
      { symbol: 'BND', weight: 0.4 },
    ],
    consent: { disclosure_version: disclosure.body.version, accepted: true, signer_name: 'Test Holder' },
  };
}

/** Creates a policy through the API (policyBody). */
export async function createPolicy(server: TestServer, token: string, overrides: PolicyOverrides = {}) {
  const response = await server.api.post('/v1/policies', { token, json: await policyBody(server, token, overrides) });
  if (response.status !== 201) throw new Error(`policy not created: ${response.status} ${response.text}`);
  return response.body;
}

export interface TradeSpec {
  symbol: string;
  side: 'buy' | 'sell';
  quantity: string;
  order_type?: 'market' | 'limit';
  limit_price?: string;
}

/** Test set-up: proposed orders as an idea engine would store them (the engines have their own tests). */
export async function propose(server: TestServer, account: { accountId: string; clientId: string }, trades: TradeSpec[]) {
  const { store, prices, clock } = server.context;
  const stored = await storeIdea(store.db, prices, clock.now(), {
    accountId: account.accountId,
    clientId: account.clientId,
    mode: 'rebalance',
    market: 'US',
    rationale: 'test set-up',
    trades: trades.map((t) => ({
      market: 'US',
      symbol: t.symbol,
      side: t.side,
      quantity: dec(t.quantity),
      order_type: t.order_type ?? 'market',
      limit_price: t.limit_price ? dec(t.limit_price) : null,
    })),
  });
  return stored.orders;
}

/** A clock the test moves by hand. */
export function manualClock(start: string) {
  let now = new Date(start);
  return {
    now: () => new Date(now),
    set(iso: string) {
      now = new Date(iso);
    },
    advance(ms: number) {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** A new account holding a policy (`policy` over policyBody's), and a way to propose it one order per trade. */
export async function policyHolder(server: TestServer, policy: PolicyOverrides = {}) {
  const account = await server.account(['read', 'trade', 'write']);
  await createPolicy(server, account.token, policy);
  return { ...account, propose: (...trades: TradeSpec[]) => propose(server, account, trades) };
}

/** A refused approval: 422 checks-failed naming `check` among its failed checks, each with a message. */
export function expectChecksFailed(server: TestServer, response: { status: number; body: any }, check: string): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(422);
  expect(response.body.type).to.equal(`${server.url}/problems/checks-failed`);
  expect(response.body.failed_checks.map((f: { check: string }) => f.check)).to.include(check);
  for (const failed of response.body.failed_checks) expect(failed.message).to.be.a('string').and.not.empty;
}

/**
 * An orders suite's server, started before its tests and closed after them, with its own clock pinned at `start` and
 * its own prices; both start over with each run of the suite (a mutation run runs it many times in one process).
 * `server` is there once the suite's `before` hooks ran; the calls the orders suites make come with it.
 */
export function ordersSuite(start: string) {
  const clock = manualClock(start);
  const prices = new AdjustablePrices();
  let started: TestServer | undefined;
  before(async () => {
    clock.set(start);
    prices.reset();
    started = await startTestServer({}, { clock, prices });
  });
  after(() => started?.close());
  const server = () => started!;
  return {
    clock,
    prices,
    server,
    holder: (policy?: PolicyOverrides) => policyHolder(server(), policy),
    approve: (token: string, id: string) => server().api.post(`/v1/orders/${id}/approve`, { token }),
    expectBlocked: (response: { status: number; body: any }, check: string) => expectChecksFailed(server(), response, check),
  };
}
