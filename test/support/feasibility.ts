// Independent references for the feasibility tests: Φ by Simpson integration, the documented closed form, a seeded
// Monte Carlo of the model, and checks on an answer's numbers — written apart from the service's own code.
import { expect } from 'chai';
import type { FeasibilityInput, FeasibilityResult } from '../../src/services/feasibility.js';
import { getMarket } from '../../src/services/markets.js';

/** Φ by composite Simpson integration of the density, written independently of src/feasibility/math/normal.ts. */
export function phiBySimpson(x: number): number {
  const a = Math.min(Math.abs(x), 40);
  const n = 20_000;
  const h = a / n;
  const f = (t: number) => Math.exp(-0.5 * t * t);
  let sum = f(0) + f(a);
  for (let i = 1; i < n; i++) sum += (i % 2 === 1 ? 4 : 2) * f(i * h);
  const half = (sum * h) / 3 / Math.sqrt(2 * Math.PI);
  return x >= 0 ? 0.5 + half : 0.5 - half;
}

/** The documented closed form: P = Φ((ln(C/K) + mT)/(s√T)), s² = ln(1 + σ²/(1+μ)²), m = ln(1+μ) − s²/2. */
export function closedForm(capital: number, target: number, years: number, mu: number, sigma: number): number {
  const s = Math.sqrt(Math.log(1 + (sigma * sigma) / ((1 + mu) * (1 + mu))));
  const m = Math.log(1 + mu) - (s * s) / 2;
  return phiBySimpson((Math.log(capital / target) + m * years) / (s * Math.sqrt(years)));
}

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussian(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Share of simulated paths (monthly lognormal steps, contribution at each month end) that reach the target. */
export function monteCarlo(input: FeasibilityInput, paths: number, seed: number): number {
  const market = getMarket(input.market)!;
  const mu = input.assumptions?.expected_return ?? market.assumptions!.expected_return;
  const sigma = input.assumptions?.volatility ?? market.assumptions!.volatility;
  const s2 = Math.log(1 + (sigma / (1 + mu)) ** 2);
  const m = Math.log(1 + mu) - s2 / 2;
  const months = Math.floor(12 * input.horizon_years + 1e-9);
  const rest = input.horizon_years - months / 12;
  const normal = gaussian(mulberry32(seed));
  let hits = 0;
  for (let path = 0; path < paths; path++) {
    let wealth = input.capital;
    for (let k = 0; k < months; k++) {
      wealth = wealth * Math.exp(m / 12 + Math.sqrt(s2 / 12) * normal()) + (input.monthly_contribution ?? 0);
    }
    wealth *= Math.exp(m * rest + Math.sqrt(s2 * rest) * normal());
    if (wealth >= input.target) hits++;
  }
  return hits / paths;
}

export function numbersIn(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(numbersIn);
  return [];
}

export function expectAllFinite(result: FeasibilityResult): void {
  for (const n of numbersIn(result)) expect(Number.isFinite(n), JSON.stringify(result)).to.equal(true);
}
