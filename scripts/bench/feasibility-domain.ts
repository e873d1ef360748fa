// Goal-feasibility requests drawn from the whole accepted domain (GoalFeasibilityRequest in
// openapi/components/schemas/goals.yaml), seeded, and every corner of it: what the feasibility benchmarks measure,
// in-process (bench-feasibility.ts) and over HTTP.
import type { FeasibilityInput } from '../../src/services/feasibility.js';

/** A seeded generator (a linear congruential one: the same requests on every run and machine). */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const cents = (x: number) => Math.round(x * 100) / 100;

/**
 * `count` requests: capital and contribution 0 one time in five, else log-uniform over their ranges (0.01 to 1e12 and
 * 1e9), target log-uniform over 0.01–1e12, horizon uniform over a day to 100 years, μ uniform over −0.5–1, σ uniform
 * over 0–2, confidence uniform over 0.5–0.99: the caller's own assumptions, in the US market.
 */
export function domainRequests(count: number, seed = 20261126): FeasibilityInput[] {
  const random = generator(seed);
  const logUniform = (low: number, high: number) => Math.exp(Math.log(low) + random() * (Math.log(high) - Math.log(low)));
  return Array.from({ length: count }, () => ({
    capital: random() < 0.2 ? 0 : cents(logUniform(0.01, 1e12)),
    target: cents(logUniform(0.01, 1e12)),
    horizon_years: Math.max(1 / 365.25, Math.round(random() * 100 * 100) / 100),
    market: 'US',
    monthly_contribution: random() < 0.2 ? 0 : cents(logUniform(0.01, 1e9)),
    confidence: Math.round((0.5 + random() * 0.49) * 100) / 100,
    assumptions: { expected_return: Math.round((-0.5 + random() * 1.5) * 1000) / 1000, volatility: Math.round(random() * 2 * 1000) / 1000 },
  }));
}

/**
 * Every corner of the domain (each field at its bounds, σ also at 1e-9 and 0.1, the horizon also at one month): 864
 * requests, the ones most likely to cost the most.
 */
export function extremeRequests(): FeasibilityInput[] {
  const requests: FeasibilityInput[] = [];
  for (const capital of [0, 0.01, 1e12])
    for (const target of [0.01, 1e12])
      for (const horizon_years of [1 / 365.25, 1 / 12, 100]) {
        for (const monthly_contribution of [0, 0.01, 1e9])
          for (const expected_return of [-0.5, 1])
            for (const volatility of [0, 1e-9, 0.1, 2]) {
              for (const confidence of [0.5, 0.99]) {
                requests.push({
                  capital,
                  target,
                  horizon_years,
                  market: 'US',
                  monthly_contribution,
                  confidence,
                  assumptions: { expected_return, volatility },
                });
              }
            }
      }
  return requests;
}
