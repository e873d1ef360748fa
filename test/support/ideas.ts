// What the trade-idea suites (test/http/ideas*.test.ts) share: their accounts, the policy those hold, a problem's slug.
import type { TestServer } from './server.js';
import { createPolicy } from './trading.js';

/** The limits the idea suites' policies start from; a test sets the one it is about on top. */
const LIMITS = { max_order_notional: 100000, max_position_weight: 0.75, max_daily_notional: 400000, max_daily_loss: 20000 };

let accounts = 0;

/** A new account's two tokens: one that may trade, one that may only read. */
export async function ideasAccount(server: TestServer): Promise<{ trade: string; read: string }> {
  const email = `ideas${++accounts}@example.com`;
  return { trade: await server.token(['read', 'trade'], email), read: await server.token(['read'], email) };
}

/** A policy over `target` (60/40 VTI and BND unless given) under the suites' limits and `limits`. */
export function ideasPolicy(server: TestServer, token: string, limits: object = {}, target?: { symbol: string; weight: number }[]) {
  return createPolicy(server, token, { limits: { ...LIMITS, ...limits }, target_allocation: target });
}

export const slug = (body: { type: string }) => body.type.split('/').pop();
