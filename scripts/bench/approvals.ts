// The approvals case of `make bench` (issue 24): a service started for it, its first second measured on its own, then
// 200/s and 300/s sustained, the CPU an approval costs in the service and in PostgreSQL, and an approval on a day
// that already holds 1,000 fills against one on a day that holds none.
import type { Agent } from 'node:http';
import type { Db } from '../../db/connect.js';
import { SimulatedPriceSource } from '../../src/services/market-data.js';
import { dec } from '../../src/services/money.js';
import { storeIdea } from '../../src/services/orders/propose.js';
import { fixedRate, type Latencies } from './load.js';
import { backendCpu, cpuMs, request, startService, type Service } from './support.js';

export interface Trader {
  accountId: string;
  clientId: string;
  token: string;
  /** A token for another service process (each names its own URL as issuer and audience). */
  tokenFor(service: Service): Promise<string>;
}

export interface ApprovalsRun {
  firstSecond: Latencies;
  at200: Latencies;
  at300: Latencies;
  /** CPU milliseconds per approval over the 200/s phase: the service's process and its PostgreSQL backends. */
  serviceCpuMs: number;
  postgresCpuMs: number;
  /** Sequential approvals' median latency on an account whose day holds 1,000 fills, and on a fresh one. */
  busyDayP50Ms: number;
  freshDayP50Ms: number;
}

const ACCOUNTS = 20;

async function readyz(service: Service): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await request(`${service.url}/readyz`)).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the service never said ready');
}

/**
 * One run: a fresh service (as a deployment starts one), its first second at 200/s as soon as /readyz says ready,
 * then 200/s for `seconds`, 300/s for `seconds`, then the busy-day comparison.
 */
export async function approvalsRun(
  databaseUrl: string,
  db: Db,
  newTrader: (service: Service) => Promise<Trader>,
  policyBody: () => Promise<unknown>,
  seconds: number,
): Promise<ApprovalsRun> {
  const service = await startService(databaseUrl);
  try {
    const phases = [200, 200 * seconds, 300 * seconds];
    const perAccount = Math.ceil(phases.reduce((a, b) => a + b, 0) / ACCOUNTS) + 1;
    const traders: (Trader & { orders: string[] })[] = [];
    const body = JSON.stringify(await policyBody());
    const withPolicy = async () => {
      const trader = await newTrader(service);
      const policy = await request(`${service.url}/v1/policies`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${trader.token}`, 'Content-Type': 'application/json' },
        body,
      });
      if (policy.status !== 201) throw new Error(`policy: ${policy.status} ${policy.body}`);
      return trader;
    };
    const orders = async (trader: Trader, count: number) => {
      // Distinct quantities, so no approval is a duplicate of another; about 0.1 share each keeps cash ample.
      const idea = await storeIdea(db.kysely, new SimulatedPriceSource(), new Date(), {
        accountId: trader.accountId,
        clientId: trader.clientId,
        mode: 'rebalance',
        market: 'US',
        rationale: 'bench set-up',
        trades: Array.from({ length: count }, (_, i) => ({
          market: 'US',
          symbol: 'VTI',
          side: 'buy' as const,
          quantity: dec((0.1 + i / 100_000).toFixed(5)),
          order_type: 'market' as const,
          limit_price: null,
        })),
      });
      return idea.orders.map((o: { id: string }) => o.id);
    };
    for (let a = 0; a < ACCOUNTS; a++) {
      const trader = await withPolicy();
      traders.push({ ...trader, orders: await orders(trader, perAccount) });
    }
    // The set-up above went through a process of its own; the measured one starts now, as a deployment starts one,
    // and is loaded as soon as /readyz says ready.
    await service.stop();
    const fresh = await startService(databaseUrl, {}, process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof-ap'] : []);
    try {
      for (const trader of traders) trader.token = await trader.tokenFor(fresh);
      await readyz(fresh);
      let next = 0;
      const approve = async (_: number, agent: Agent) => {
        const n = next++;
        const trader = traders[n % ACCOUNTS]!;
        const id = trader.orders[Math.floor(n / ACCOUNTS)]!;
        return (
          await request(`${fresh.url}/v1/orders/${id}/approve`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${trader.token}` },
            agent,
          })
        ).status;
      };
      const firstSecond = await fixedRate(phases[0]!, 200, approve);
      const database = new URL(databaseUrl).pathname.slice(1);
      const serviceBefore = cpuMs(fresh.pid);
      const backendsBefore = await backendCpu(db, database);
      const at200 = await fixedRate(phases[1]!, 200, approve);
      const serviceCpuMs = (cpuMs(fresh.pid) - serviceBefore) / phases[1]!;
      const backendsAfter = await backendCpu(db, database);
      let postgres = 0;
      for (const [pid, after] of backendsAfter) postgres += after - (backendsBefore.get(pid) ?? 0);
      const at300 = await fixedRate(phases[2]!, 300, approve);
      // The busy day: one account with 1,000 fills today, approving 100 more one at a time, against a fresh account;
      // the two alternate (a fresh day's approval, then a busy day's), so drift in the machine's speed meets both.
      const busy = await withPolicyOn(fresh);
      const busyOrders = await orders(busy, 1_100);
      await fixedRate(
        1_000,
        200,
        async (i, agent) =>
          (
            await request(`${fresh.url}/v1/orders/${busyOrders[i]}/approve`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${busy.token}` },
              agent,
            })
          ).status,
      );
      const quiet = await withPolicyOn(fresh);
      const quietOrders = await orders(quiet, 100);
      const timed = async (trader: Trader, id: string) => {
        const start = performance.now();
        const status = (
          await request(`${fresh.url}/v1/orders/${id}/approve`, { method: 'POST', headers: { Authorization: `Bearer ${trader.token}` } })
        ).status;
        if (status !== 200) throw new Error(`approval: ${status}`);
        return performance.now() - start;
      };
      const freshTimes: number[] = [];
      const busyTimes: number[] = [];
      for (let i = 0; i < 100; i++) {
        freshTimes.push(await timed(quiet, quietOrders[i]!));
        busyTimes.push(await timed(busy, busyOrders[1_000 + i]!));
      }
      const median = (times: number[]) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
      const freshDayP50Ms = median(freshTimes);
      const busyDayP50Ms = median(busyTimes);
      return { firstSecond, at200, at300, serviceCpuMs, postgresCpuMs: postgres / phases[1]!, busyDayP50Ms, freshDayP50Ms };

      async function withPolicyOn(target: Service) {
        const trader = await newTrader(target);
        const policy = await request(`${target.url}/v1/policies`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${trader.token}`, 'Content-Type': 'application/json' },
          body,
        });
        if (policy.status !== 201) throw new Error(`policy: ${policy.status} ${policy.body}`);
        return trader;
      }
    } finally {
      await fresh.stop();
    }
  } finally {
    await service.stop();
  }
}
