// The feasibility searches' numerics: amounts rounded to the currency's unit whose probability reaches the
// confidence, found by root finding on the probit scale, on the log grid with a cheap stand-in and a bounded number
// of convolutions.
import { normalQuantile } from './math/normal.js';
import { boundary } from './math/roots.js';

/**
 * Four times the largest difference measured between the backward grid's P and the forward grid's (0.0042 over 150
 * random laws of the grid's region, with and without a leftover fraction): where the backward grid clears q by this
 * much, it decides alone.
 */
export const REACH_MARGIN = 0.02;

/** Whether the exact P reaches q, read from a stand-in within `margin` of it where that clears q either way. */
export function atLeast(exact: () => number, proxy: () => number, q: number, margin: number): boolean {
  const guess = proxy();
  if (guess >= q + margin) return true;
  if (guess < q - margin) return false;
  return exact() >= q;
}

/** The most log-grid convolutions one search may run (each a new start ratio C/c): its cost is bounded by it. */
const GRID_EVALUATIONS = 12;
class SearchBudgetSpent extends Error {}

/**
 * The smallest amount to `decimals` whose accurate (log-grid) probability reaches q, with that probability, starting
 * from `estimate`; the callers know that P(0) < q ≤ P(max). A cheap stand-in for P near an amount already computed,
 * `fastAround(amount)`, differs from it by an offset that varies slowly, so the stand-in solves fast(x) = q − offset,
 * with the offset read exactly at the last rounded amount tried: usually two or three accurate evaluations (each a
 * new convolution, the amount changing the start ratio C/c). The amount one unit below is then known not to reach q
 * from the same offset, or — when that prediction falls within a margin of q — computed. Every amount computed
 * narrows an exact bracket, and a step the stand-in proposes outside it is replaced by the bracket's middle, so the
 * search always closes in; after GRID_EVALUATIONS convolutions the smallest amount computed to reach q is the
 * answer (within the searches' resolution of the boundary but for the rarest laws; never one that does not reach q).
 */
export function solveOnGrid(
  prob: (x: number) => number,
  fastAround: (x: number) => (y: number) => number,
  q: number,
  estimate: number,
  max: number,
  decimals: number,
  reach = Infinity,
): { value: number; probability: number } {
  const unit = 10 ** -decimals;
  const resolution = 0.01 * unit;
  const up = (x: number) => Math.max(0, Math.min(max, roundTo(x, decimals, 'up')));
  const known = new Map<number, number>();
  const exact = (x: number) => {
    let p = known.get(x);
    if (p === undefined) {
      if (known.size >= GRID_EVALUATIONS) throw new SearchBudgetSpent();
      known.set(x, (p = prob(x)));
    }
    return p;
  };
  // P(bad) < q ≤ P(good), both on the unit grid.
  let bad = 0;
  let good = max;
  const inside = () => up(bad > 0 ? Math.sqrt(bad * good) : good / 2);
  try {
    let value = Math.min(good, Math.max(up(estimate), up(unit)));
    for (;;) {
      const p = exact(value);
      if (p >= q) good = Math.min(good, value);
      else bad = Math.max(bad, value);
      if (up(bad + unit) >= good) return { value: good, probability: exact(good) };
      const fast = fastAround(value);
      const offset = p - fast(value);
      // A stand-in good only near its amount (`reach`: the factor it may be trusted over) steps at most that far.
      let next = up(Math.min(value * reach, Math.max(value / reach, solveNear(fast, q - offset, value, max, resolution))));
      if (next === value && p >= q) {
        // The stand-in puts the boundary within this unit: the unit below decides. Over one unit the offset moves by
        // a small part of P's own change (the two methods' slopes differ by a few percent near the boundary): a
        // prediction within a fifth of that change of q is computed instead.
        const back = up(value - unit);
        const predicted = fast(back) + offset;
        const margin = 0.2 * Math.abs(p - predicted) + 1e-9;
        if (back <= bad || predicted < q - margin) return { value, probability: p };
        next = back;
      } else if (next === value) {
        next = up(value + unit);
      }
      value = next > bad && next < good ? next : inside();
    }
  } catch (error) {
    if (!(error instanceof SearchBudgetSpent)) throw error;
    return { value: good, probability: known.get(good) ?? prob(good) };
  }
}

/** The smallest x in [0, max] with the increasing `f` at least `level`, bracketed outward from `near`. */
export function solveNear(f: (x: number) => number, level: number, near: number, max: number, resolution: number): number {
  if (level <= 0) return 0;
  if (near <= 0 || near >= max) return f(max) < level ? max : probabilityBoundary(f, level, 0, max, resolution);
  let factor = 1.01;
  if (f(near) >= level) {
    let good = near;
    for (;;) {
      const bad = good / factor < resolution ? 0 : good / factor;
      if (bad === 0 || f(bad) < level) return bad === 0 && f(0) >= level ? 0 : probabilityBoundary(f, level, bad, good, resolution);
      good = bad;
      factor *= factor;
    }
  }
  let bad = near;
  for (;;) {
    const good = Math.min(max, bad * factor);
    if (f(good) >= level) return probabilityBoundary(f, level, bad, good, resolution);
    if (good === max) return max;
    bad = good;
    factor *= factor;
  }
}

/** Rounds to `decimals`, ignoring binary noise (12.34 * 100 = 1234.0000000000002 stays 12.34). */
export function roundTo(x: number, decimals: number, direction: 'up' | 'down'): number {
  const factor = 10 ** decimals;
  const scaled = x * factor;
  const nearest = Math.round(scaled);
  if (Math.abs(scaled - nearest) <= 8 * Number.EPSILON * Math.max(1, Math.abs(scaled))) return nearest / factor;
  return (direction === 'up' ? Math.ceil(scaled) : Math.floor(scaled)) / factor;
}

/**
 * Rounds `x` in `direction` and recomputes the probability for the rounded value; if rounding noise left it below
 * the confidence, moves one more unit (a few times at most). If the value one unit back (toward the search's side)
 * already reaches the confidence — the search stops just past a step, as when σ = 0 makes P jump from 0 to 1 exactly
 * at the answer — that value is the answer.
 */
export function roundedWithProbability(
  x: number,
  decimals: number,
  direction: 'up' | 'down',
  q: number,
  prob: (v: number) => number,
  limit: number,
): { value: number; probability: number } {
  const unit = 10 ** -decimals;
  let value = Math.max(0, Math.min(limit, roundTo(x, decimals, direction)));
  let p = prob(value);
  for (let i = 0; i < 3 && p < q; i++) {
    const next = roundTo(direction === 'up' ? value + unit : value - unit, decimals, direction);
    if (next < 0 || next > limit || next === value) break;
    value = next;
    p = prob(value);
  }
  if (p >= q) {
    const back = roundTo(direction === 'up' ? value - unit : value + unit, decimals, direction);
    if (back >= 0 && back <= limit && back !== value) {
      const pBack = prob(back);
      if (pBack >= q) return { value: back, probability: pBack };
    }
  }
  return { value, probability: p };
}

/**
 * The searches' resolution in units of the currency: the rounding that follows (roundedWithProbability) computes the
 * rounded amount and the one a unit back, so an answer within a quarter unit of the boundary rounds to the same amount
 * as one within a hundredth, with fewer evaluations; on the log grid the answer is a start that solveOnGrid refines.
 */
export const SEARCH_RESOLUTION = 0.25;

/** `boundary` for a probability, its secant steps on the probit scale, where P rises nearly linearly. */
export function probabilityBoundary(f: (x: number) => number, q: number, bad: number, good: number, resolution: number): number {
  return boundary(f, q, bad, good, resolution, true, normalQuantile);
}

/**
 * A bracket [bad, good] of an increasing f at q in [0, max] (f(0) < q ≤ f(max)) by factors of 2 from `near`: the
 * answer is usually within a few of them of the request's own amount or a closed-form estimate, where a geometric
 * bisection from the whole range would take five or six evaluations more. Beyond eight factors, what is left of the
 * range is returned.
 */
export function bracket(f: (x: number) => number, q: number, near: number, max: number): [number, number] {
  if (!(near > 0 && near < max)) return [0, max];
  let bad = near;
  let good = near;
  if (f(near) >= q) {
    for (let i = 0; i < 8; i++) {
      bad = good / 2;
      if (f(bad) < q) return [bad, good];
      good = bad;
    }
    return [0, good];
  }
  for (let i = 0; i < 8; i++) {
    good = Math.min(max, bad * 2);
    if (f(good) >= q) return [bad, good];
    if (good === max) break;
    bad = good;
  }
  return [bad, max];
}

/** `f` remembering its values for one search, so that a bracket's ends are not computed again by the root finder. */
export function memo(f: (x: number) => number): (x: number) => number {
  const known = new Map<number, number>();
  return (x) => {
    let value = known.get(x);
    if (value === undefined) known.set(x, (value = f(x)));
    return value;
  };
}
