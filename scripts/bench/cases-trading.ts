// The trading cases of `make bench`: approvals at a fixed rate (scripts/bench/approvals.ts), webhooks delivered
// meanwhile (scripts/bench/webhooks.ts), and the orders list at a million orders.
import { sql } from 'kysely';
import { approvalsRun, type ApprovalsRun } from './approvals.js';
import { fixed, log, type Bench } from './context.js';
import type { Latencies } from './load.js';
import { holderPolicy, request, type Service } from './support.js';
import { webhooksRun } from './webhooks.js';

export async function approvalsCase(bench: Bench, single: Service, auth: Record<string, string>): Promise<void> {
  const { rows, raw, db, client, database, duration } = bench;
  // Three runs in a row, each on a service of its own started for it (scripts/bench/approvals.ts), all reported.
  const RUNS = Number(process.env.APPROVAL_RUNS ?? 3);
  const policyBody = async () => {
    const current = await request(`${single.url}/v1/disclosures/current`, { headers: auth });
    if (current.status !== 200) throw new Error(`disclosure: ${current.status} ${current.body}`);
    const disclosure = JSON.parse(current.body) as { version: number };
    return holderPolicy(disclosure.version);
  };
  const runs: ApprovalsRun[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const result = await approvalsRun(database.url, db, (service) => client(service), policyBody, Math.max(5, duration));
    runs.push(result);
    const ok = (l: Latencies, n: number) => (l.statuses['200'] ?? 0) === n;
    const label = `run ${run} of ${RUNS}`;
    rows.push({
      case: `Approvals, ${label}: the first second at 200/s over 20 accounts, from a service just ready (PostgreSQL)`,
      measured:
        `p50 ${fixed(result.firstSecond.p50, 1)} ms, p99 ${fixed(result.firstSecond.p99, 1)} ms, ` +
        `statuses ${JSON.stringify(result.firstSecond.statuses)}`,
      target: 'p99 ≤ 100 ms',
      met: result.firstSecond.p99 <= 100 && ok(result.firstSecond, 200),
    });
    rows.push({
      case: `… then 200/s sustained`,
      measured: `${fixed(result.at200.achievedPerSecond, 0)}/s, p50 ${fixed(result.at200.p50, 1)} ms, p99 ${fixed(result.at200.p99, 1)} ms`,
      target: '≥ 200/s, p99 ≤ 50 ms',
      met: result.at200.achievedPerSecond >= 190 && result.at200.p99 <= 50 && ok(result.at200, result.at200.completed),
    });
    rows.push({
      case: `… CPU per approval at 200/s: the service's process + PostgreSQL's backends`,
      measured: `${fixed(result.serviceCpuMs, 2)} + ${fixed(result.postgresCpuMs, 2)} = ${fixed(result.serviceCpuMs + result.postgresCpuMs, 2)} ms`,
      target: '≤ 3.5 ms',
      met: result.serviceCpuMs + result.postgresCpuMs <= 3.5,
    });
    rows.push({
      case: `… then 300/s sustained`,
      measured:
        `${fixed(result.at300.achievedPerSecond, 0)}/s, p50 ${fixed(result.at300.p50, 1)} ms, p99 ${fixed(result.at300.p99, 1)} ms, ` +
        `statuses ${JSON.stringify(result.at300.statuses)}`,
      target: '≥ 300/s, p99 ≤ 100 ms',
      met: result.at300.achievedPerSecond >= 285 && result.at300.p99 <= 100 && ok(result.at300, result.at300.completed),
    });
    rows.push({
      case: `… an approval (median of 100, one at a time, alternating with the other account's) on a day with 1,000 fills vs one with none`,
      measured: `${fixed(result.busyDayP50Ms, 2)} vs ${fixed(result.freshDayP50Ms, 2)} ms`,
      ratio: result.busyDayP50Ms / result.freshDayP50Ms,
      target: '≤ 1.2×',
      met: result.busyDayP50Ms / result.freshDayP50Ms <= 1.2,
    });
    log(`approvals ${label}: ${JSON.stringify(result)}`);
  }
  raw.approvals = runs;
}

export async function webhooksCase(bench: Bench): Promise<void> {
  const { rows, raw, db, client, database, duration } = bench;
  // scripts/bench/webhooks.ts: a service of its own, approvals at 200/s without and then with an endpoint per account.
  const run = await webhooksRun(database.url, db, (service) => client(service), Math.max(5, duration));
  raw.webhooks = run;
  const ratio = run.withEndpoint.p99 / run.withoutEndpoint.p99;
  rows.push({
    case: 'Webhooks: delivery lag of order.filled at 200 approvals/s over 20 accounts to a local receiver answering 200 (approval answered → receiver has it)',
    measured: `p50 ${fixed(run.lag.p50, 1)} ms, p99 ${fixed(run.lag.p99, 1)} ms, max ${fixed(run.lag.max, 1)} ms (${run.lag.count} events)`,
    target: 'p99 ≤ 1 s',
    met: run.lag.p99 <= 1000,
  });
  rows.push({
    case: '… events lost / delivered twice (order.submitted and order.filled)',
    measured: `${run.lost} / ${run.duplicated} of ${run.expected}`,
    target: '0 / 0',
    met: run.lost === 0 && run.duplicated === 0 && run.expected > 0,
  });
  rows.push({
    case: '… approvals p99 at 200/s with an endpoint per account vs none (three alternating pairs of phases, pooled)',
    measured: `${fixed(run.withEndpoint.p99, 1)} vs ${fixed(run.withoutEndpoint.p99, 1)} ms`,
    ratio,
    target: '≤ 1.2×',
    met: ratio <= 1.2,
  });
  log(`webhooks: ${JSON.stringify(run)}`);
}

export async function ordersCase(bench: Bench, single: Service): Promise<void> {
  const { rows, raw, db, client } = bench;
  const big = await client(single, ['read']);
  const small = await client(single, ['read']);
  const BIG = Number(process.env.BENCH_ORDERS ?? 1_000_000);
  log(`orders: inserting ${BIG.toLocaleString()} orders…`);
  const insert = (accountId: string, prefix: string, count: number) =>
    sql`
      insert into orders (id, account_id, market, currency, symbol, side, quantity, order_type, notional, status, expires_at)
      select ${prefix} || lpad(i::text, 12, '0'), ${accountId}, 'US', 'USD', (array['VTI','BND','QQQ','GLD','AAPL'])[1 + i % 5], 'buy', 1,
             'market', 100, (array['filled','rejected','cancelled','blocked','expired'])[1 + (i / 7) % 5], now() + interval '1 day'
      from generate_series(1, ${count}) as i`.execute(db.kysely);
  await insert(big.accountId, 'ord_b', BIG);
  await insert(small.accountId, 'ord_s', 1000);
  await sql`analyze orders`.execute(db.kysely);
  const p50 = async (url: string, headers: Record<string, string>, n = 200) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      const response = await request(url, { headers });
      if (response.status !== 200) throw new Error(`${url}: ${response.status} ${response.body}`);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(n / 2)]!;
  };
  const page = (who: { token: string }, query: string) => p50(`${single.url}/v1/orders?${query}`, { Authorization: `Bearer ${who.token}` });
  const smallFirst = await page(small, 'limit=20');
  const bigFirst = await page(big, 'limit=20');
  const deepCursor = Buffer.from(JSON.stringify({ k: `ord_b${String(Math.floor(BIG * 0.1)).padStart(12, '0')}` })).toString('base64url');
  const bigDeep = await page(big, `limit=20&cursor=${deepCursor}`);
  const bigFiltered = await page(big, 'limit=20&status=rejected&symbol=GLD');
  raw.orders = { orders: BIG, p50Ms: { small: smallFirst, bigFirst, bigDeep, bigFiltered } };
  const worst = Math.max(bigFirst, bigDeep, bigFiltered) / smallFirst;
  rows.push({
    case: `Orders page (p50) at ${BIG.toLocaleString()} orders vs 1,000 (first, 90 % deep, filtered)`,
    measured: `${fixed(bigFirst)} / ${fixed(bigDeep)} / ${fixed(bigFiltered)} ms vs ${fixed(smallFirst)} ms`,
    ratio: worst,
    target: '≤ 1.5×',
    met: worst <= 1.5,
  });
  log(`orders: ${JSON.stringify(raw.orders)}`);
}
