// Benchmark: goal feasibility with monthly contributions, the whole answer (probability and every suggestion) as
// the service computes it, over a mix of horizons 1–50 y, volatilities 0.05–0.35 and capitals; prints p50/p99 and,
// for comparison in the same run, the same answers without contributions (closed forms). Then the whole accepted
// domain (scripts/bench/feasibility-domain.ts) and its 864 corners, in CPU time per request, with the process's memory
// after them. Also prints the largest difference from the reference simulations in
// test/fixtures/feasibility-reference.json.
// Usage: npm run bench:feasibility
import { readFileSync } from 'node:fs';
import { evaluateFeasibility, type FeasibilityInput } from '../src/services/feasibility.js';
import { domainRequests, extremeRequests } from './bench/feasibility-domain.js';

function percentiles(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: sorted[Math.floor(sorted.length / 2)]!, p99: sorted[Math.floor(sorted.length * 0.99)]! };
}
const inputs: FeasibilityInput[] = Array.from({ length: 300 }, (_, i) => ({
  capital: 1000 * (i % 50),
  target: 300_000 + 1000 * i,
  horizon_years: 1 + (i % 50),
  market: 'US',
  monthly_contribution: 100 + 10 * (i % 40),
  confidence: 0.8,
  assumptions: { expected_return: -0.05 + (i % 21) * 0.01, volatility: 0.05 + (i % 7) * 0.05 },
}));
const time = (list: FeasibilityInput[]) =>
  list.map((input) => {
    const start = performance.now();
    evaluateFeasibility(input);
    return performance.now() - start;
  });
// Warm-up on requests of the same kind that the measured ones do not repeat (a repeated one would be answered from
// the computation's caches).
time(inputs.slice(0, 50).map((input) => ({ ...input, target: input.target + 500 })));
const withContributions = percentiles(time(inputs));
const lumpSums = percentiles(time(inputs.map((input) => ({ ...input, monthly_contribution: 0 }))));
/** CPU milliseconds of each request (the computation is synchronous: its thread's CPU is its cost). */
const cpu = (list: FeasibilityInput[]) =>
  list.map((input) => {
    const start = process.cpuUsage();
    evaluateFeasibility(input);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  });
cpu(domainRequests(60, 1));
const domain = cpu(domainRequests(1000)).sort((a, b) => a - b);
const extremes = cpu(extremeRequests()).sort((a, b) => a - b);
const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
const rssMiB = process.memoryUsage().rss / 2 ** 20;
const reference = JSON.parse(readFileSync(new URL('../test/fixtures/feasibility-reference.json', import.meta.url), 'utf8')) as Record<
  string,
  number
>[];
const errors = reference.map((c) => ({
  case: `${c.horizon_years} y σ ${c.volatility} C ${c.capital}`,
  error:
    evaluateFeasibility({
      capital: c.capital!,
      target: c.target!,
      horizon_years: c.horizon_years!,
      market: 'US',
      monthly_contribution: c.monthly_contribution,
      assumptions: { expected_return: c.expected_return!, volatility: c.volatility! },
    }).probability - c.probability!,
}));
const worst = errors.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a));
const result = {
  feasibilityP50Ms: withContributions.p50,
  feasibilityP99Ms: withContributions.p99,
  lumpSumP50Ms: lumpSums.p50,
  domainCpuP50Ms: at(domain, 0.5),
  domainCpuP99Ms: at(domain, 0.99),
  domainCpuMaxMs: at(domain, 1),
  extremesCpuP99Ms: at(extremes, 0.99),
  extremesCpuMaxMs: at(extremes, 1),
  rssMiB,
  worstReferenceError: worst.error,
  worstReferenceCase: worst.case,
};
console.log(
  `with contributions: p50 ${withContributions.p50.toFixed(2)} ms, p99 ${withContributions.p99.toFixed(2)} ms (lump sums: p50 ${lumpSums.p50.toFixed(3)} ms)`,
);
console.log(
  `whole domain (1,000 requests): CPU p50 ${at(domain, 0.5).toFixed(2)} ms, p99 ${at(domain, 0.99).toFixed(2)} ms, max ${at(domain, 1).toFixed(1)} ms`,
);
console.log(
  `its ${extremes.length} corners: CPU p99 ${at(extremes, 0.99).toFixed(2)} ms, max ${at(extremes, 1).toFixed(1)} ms; RSS after all ${rssMiB.toFixed(0)} MiB`,
);
console.log(
  `largest difference from the reference simulations: ${worst.error.toFixed(5)} (${worst.case}); all: ${errors.map((e) => e.error.toFixed(4)).join(' ')}`,
);
console.log(JSON.stringify(result));
