// The feasibility cases of `make bench`: goal feasibility over HTTP against GET /healthz, and over the whole
// accepted domain and its corners on a service of its own.
import { fixed, log, type Bench } from './context.js';
import { domainRequests, extremeRequests } from './feasibility-domain.js';
import { request, rssMiB, startService, type Service } from './support.js';

export async function feasibilityCase(bench: Bench, single: Service): Promise<void> {
  const { rows, raw, client, database } = bench;
  const goal = await client(single, ['read']);
  const headers = { Authorization: `Bearer ${goal.token}`, 'Content-Type': 'application/json' };
  const latencies = async (call: (i: number) => Promise<number>, n = 300) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      const status = await call(i);
      if (status !== 200) throw new Error(`status ${status}`);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return { p50: times[Math.floor(n / 2)]!, p99: times[Math.floor(n * 0.99)]! };
  };
  const feasibility = (i: number) =>
    request(`${single.url}/v1/goals/feasibility`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        capital: 1000 * (i % 50),
        target: 300_000 + 1000 * i,
        horizon_years: 1 + (i % 50),
        market: 'US',
        monthly_contribution: 100 + 10 * (i % 40),
        confidence: 0.8,
      }),
    }).then((r) => r.status);
  // The whole domain: the caller's assumptions over μ −0.05–0.15 and σ 0.05–0.35 (as npm run
  // bench:feasibility, in-process), where about a third of the requests need the log grid.
  const domain = (i: number) =>
    request(`${single.url}/v1/goals/feasibility`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        capital: 1000 * (i % 50),
        target: 300_000 + 1000 * i,
        horizon_years: 1 + (i % 50),
        market: 'US',
        monthly_contribution: 100 + 10 * (i % 40),
        confidence: 0.8,
        assumptions: { expected_return: -0.05 + (i % 21) * 0.01, volatility: 0.05 + (i % 7) * 0.05 },
      }),
    }).then((r) => r.status);
  const health = () => request(`${single.url}/healthz`).then((r) => r.status);
  await latencies(feasibility, 50);
  const withContributions = await latencies(feasibility);
  const overDomain = await latencies(domain);
  const baseline = await latencies(health);
  raw.feasibility = { feasibility: withContributions, domain: overDomain, healthz: baseline };
  rows.push({
    case: 'Feasibility with monthly contributions (HTTP p50, US assumptions, horizons 1–50 y) vs GET /healthz',
    measured: `p50 ${fixed(withContributions.p50)} ms (p99 ${fixed(withContributions.p99)}) vs ${fixed(baseline.p50)} ms`,
    ratio: withContributions.p50 / baseline.p50,
    target: 'p50 ≤ 5 ms',
    met: withContributions.p50 <= 5,
  });
  rows.push({
    case: '… over the earlier domain (μ −0.05–0.15, σ 0.05–0.35, horizons 1–50 y, capital 0–49,000)',
    measured: `p50 ${fixed(overDomain.p50)} ms (p99 ${fixed(overDomain.p99)})`,
    ratio: overDomain.p50 / baseline.p50,
    target: 'p50 ≤ 5 ms',
    met: overDomain.p50 <= 5,
  });
  log(`feasibility: ${JSON.stringify(raw.feasibility)}`);

  // The whole accepted domain and its corners (scripts/bench/feasibility-domain.ts), on a service of their own whose
  // CPU budget does not stop one client's thousands of requests (the budget has its rows in `heavy`); its memory
  // before and after the corners, which are the costliest requests.
  const wide = await startService(database.url, { CPU_BUDGET_MS_PER_MINUTE: '1000000000' });
  const wideToken = (await client(wide, ['read'])).token;
  const wideHeaders = { Authorization: `Bearer ${wideToken}`, 'Content-Type': 'application/json' };
  const ask = (input: object) =>
    request(`${wide.url}/v1/goals/feasibility`, { method: 'POST', headers: wideHeaders, body: JSON.stringify(input) }).then(
      (r) => r.status,
    );
  const warmUp = domainRequests(100, 1);
  const whole = domainRequests(1000);
  const corners = extremeRequests();
  await latencies((i) => ask(warmUp[i]!), warmUp.length);
  const overWhole = await latencies((i) => ask(whole[i]!), whole.length);
  const rssBefore = rssMiB(wide.pid);
  const cornerTimes: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const start = performance.now();
    const status = await ask(corners[i % corners.length]!);
    if (status !== 200) throw new Error(`corner ${JSON.stringify(corners[i % corners.length])}: status ${status}`);
    cornerTimes.push(performance.now() - start);
  }
  cornerTimes.sort((a, b) => a - b);
  const rssAfter = rssMiB(wide.pid);
  await wide.stop();
  const extremes = { p99: cornerTimes[Math.floor(cornerTimes.length * 0.99)]!, max: cornerTimes[cornerTimes.length - 1]! };
  raw.feasibilityDomain = { whole: overWhole, extremes, rssBeforeMiB: rssBefore, rssAfterMiB: rssAfter };
  rows.push({
    case:
      'Feasibility over the whole accepted domain (1,000 seeded requests: capital and contribution 0 or 0.01–1e12 / 1e9, ' +
      'target 0.01–1e12, horizon a day–100 y, μ −0.5–1, σ 0–2, confidence 0.5–0.99; HTTP, computed on the pool)',
    measured: `p50 ${fixed(overWhole.p50)} ms, p99 ${fixed(overWhole.p99)} ms`,
    target: 'p99 ≤ 25 ms',
    met: overWhole.p99 <= 25,
  });
  rows.push({
    case: `… its ${corners.length} corners, each field at its bounds (σ also 1e-9 and 0.1, the horizon one month), 1,000 requests`,
    measured: `p99 ${fixed(extremes.p99)} ms, max ${fixed(extremes.max)} ms`,
    target: 'max ≤ 100 ms',
    met: extremes.max <= 100,
  });
  rows.push({
    case: 'Service memory after those 1,000 corner requests (RSS after vs before)',
    measured: `${fixed(rssAfter, 0)} vs ${fixed(rssBefore, 0)} MiB`,
    ratio: rssAfter / rssBefore,
    target: '≤ 64 MiB more, under 1 GiB',
    met: rssAfter - rssBefore <= 64 && rssAfter < 1024,
  });
  log(`feasibility domain: ${JSON.stringify(raw.feasibilityDomain)}`);
}
