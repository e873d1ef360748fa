// The horizon needed: the first horizon on the 0.01-year grid whose probability reaches the confidence.
import { GridWealth } from './laws/log-grid.js';
import { WealthMoments } from './laws/moments.js';
import { normalCdf } from './math/normal.js';
import {
  gridKey,
  gridLaws,
  MOMENT_MATCHED_UP_TO,
  CONDITIONAL_UP_TO,
  onGrid,
  probability,
  wholeMonths,
  type Scenario,
} from './probability.js';
import { roundedWithProbability } from './search.js';
import { HORIZON_DECIMALS, MAX_HORIZON_YEARS, REACHED, type HorizonNeededSuggestion } from './types.js';

function unattainable(reason: string): HorizonNeededSuggestion {
  return { kind: 'horizon_needed', attainable: false, reason, horizon_years: null, probability: null };
}
const NOT_WITHIN_MAX_HORIZON = `The confidence is not reached within the request's maximum horizon (${MAX_HORIZON_YEARS} years).`;

export function horizonNeeded(s: Scenario, z: number, q: number): HorizonNeededSuggestion {
  if (s.target <= s.capital) return { kind: 'horizon_needed', ...REACHED, horizon_years: 0, probability: 1 };
  const prob = (years: number) => probability({ ...s, years });
  if (s.monthly > 0) return searchHorizon(s, q, prob);
  const { m, s2 } = s.model;
  if (s.capital <= 0) return unattainable('Without capital or contributions the wealth stays 0.');
  if (m <= 0) {
    return unattainable(
      'The log drift of the returns is not positive and no contributions are paid, so waiting longer does not raise the probability to the confidence.',
    );
  }
  // With x = √T and L = ln(K/C) > 0: P ≥ q ⇔ m·x² − z·s·x − L ≥ 0, so x is at least the positive root.
  const zs = z * Math.sqrt(s2);
  const root = (zs + Math.sqrt(zs * zs + 4 * m * (Math.log(s.target) - Math.log(s.capital)))) / (2 * m);
  const years = root * root;
  if (!(years <= MAX_HORIZON_YEARS)) return unattainable(NOT_WITHIN_MAX_HORIZON);
  const { value, probability: p } = roundedWithProbability(years, HORIZON_DECIMALS, 'up', q, prob, MAX_HORIZON_YEARS);
  if (p < q) return unattainable(NOT_WITHIN_MAX_HORIZON);
  return { kind: 'horizon_needed', ...REACHED, horizon_years: value, probability: p };
}

/**
 * The first horizon on the 0.01-year grid in (0, 100] whose probability reaches q. Horizons before the first one
 * where Cantelli's bound on the exact moments allows q are passed over (none at all when no horizon allows it); from
 * there one log grid steps forward month by month and each horizon is read from it in turn (the leftover fraction
 * integrated when read), so the first one reaching q is found exactly. Up to s²T = 1, where the answer's probability
 * is the conditional lognormal's (within 0.0005 of the grid's), that method confirms it and its own first crossing
 * next to the grid's is the answer. At σ = 0, P is a step in T, bisected.
 */
/** The month-bound's shift in standard deviations of the leftover fraction's return, and P(Y ≥ t) beyond it. */
const BOUND_SD = 3;
const BOUND_TAIL = normalCdf(-BOUND_SD);

function searchHorizon(s: Scenario, q: number, prob: (years: number) => number): HorizonNeededSuggestion {
  const unit = 10 ** -HORIZON_DECIMALS;
  const steps = MAX_HORIZON_YEARS * 10 ** HORIZON_DECIMALS;
  const at = (j: number) => (j <= 0 ? 0 : prob(j * unit)); // at 0 the capital is below the target
  const found = (j: number): HorizonNeededSuggestion => {
    const years = Number((j * unit).toFixed(HORIZON_DECIMALS));
    return { kind: 'horizon_needed', ...REACHED, horizon_years: years, probability: prob(years) };
  };
  // No horizon before `possible` can reach q: Cantelli's bound on the exact moments is below it (with a margin for
  // the methods' error); when no horizon is possible at all, nothing more is computed.
  const bound = new WealthMoments(s.capital, s.monthly, s.model);
  let possible = 0;
  for (let j = 1; j <= steps; j++) {
    const years = j * unit;
    const months = wholeMonths(years);
    bound.advanceTo(months);
    if (bound.atMost(s.target, Math.max(0, years - months / 12)) >= q - 0.001) {
      possible = j;
      break;
    }
  }
  if (!possible) return unattainable(NOT_WITHIN_MAX_HORIZON);
  // The last horizon on the conditional lognormal.
  const switchAt = Math.min(steps, Math.floor((CONDITIONAL_UP_TO / s.model.s2) * 10 ** HORIZON_DECIMALS + 1e-9));
  if (s.model.s2 === 0) {
    // Deterministic wealth: P is 0 or 1 and rises with T (contributions only add); bisected on the grid.
    if (at(steps) < q) return unattainable(NOT_WITHIN_MAX_HORIZON);
    let lo = possible - 1;
    let hi = steps;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (at(mid) >= q) hi = mid;
      else lo = mid;
    }
    return found(hi);
  }
  // Horizons whose log variance is at most MOMENT_MATCHED_UP_TO are read from the moments themselves (their method),
  // advanced month by month as the bound was: a few operations each, whatever σ. Beyond them, σ is large enough
  // (s² > MOMENT_MATCHED_UP_TO / MAX_HORIZON_YEARS) for the log grid's step, one monthly sd, to be a coarse one.
  let first = possible;
  for (; first <= steps && s.model.s2 * (first * unit) <= MOMENT_MATCHED_UP_TO; first++) {
    const years = first * unit;
    const months = wholeMonths(years);
    if (months < 1) {
      if (at(first) >= q) return found(first);
      continue;
    }
    bound.advanceTo(months);
    if (bound.exceeds(s.target, Math.max(0, years - months / 12)) >= q) return found(first);
  }
  if (first > steps) return unattainable(NOT_WITHIN_MAX_HORIZON);
  const law = new GridWealth(s.model, s.capital / s.monthly, wholeMonths(MAX_HORIZON_YEARS));
  // The request's own horizon, where its probability is read on this same grid (same nodes, same steps): the law
  // there is kept on the way (or stepped to after the answer), so that the probability steps no grid of its own.
  const own = onGrid(s) ? wholeMonths(s.years) : 0;
  const advance = (months: number) => {
    if (law.months < own && own <= months) {
      law.advanceTo(own);
      gridLaws.set(gridKey(own, s.model, s.capital / s.monthly), law.snapshot());
    }
    law.advanceTo(months);
  };
  const level = s.target / s.monthly;
  // Within a month only the leftover fraction's return Y moves P, and P(L + Y ≥ x) ≤ P(L ≥ x − t) + P(Y ≥ t) for any
  // t: with t the fraction's drift plus k standard deviations, one reading bounds the whole month, and the months
  // that cannot reach q are passed over; within the others, each horizon is first bounded the same way with its own
  // fraction (one reading of the grid instead of a quadrature of 35). k = 3 (P(Y ≥ t) ≤ 0.00135, added to the
  // bound) passes over more months than a bound that makes P(Y ≥ t) negligible: the law's spread after a few
  // months is narrower than 6.5 monthly standard deviations, so such a bound rarely excludes anything.
  const { m, s2 } = s.model;
  const reachOver = (fraction: number) => Math.exp(Math.max(0, m * fraction) + BOUND_SD * Math.sqrt(s2 * fraction));
  const reach = reachOver(1 / 12);
  let hopeless = -1; // the last month known not to reach q
  for (let j = first; j <= steps; j++) {
    const years = j * unit;
    const months = wholeMonths(years);
    if (months < 1) {
      if (at(j) >= q) return found(j);
      continue;
    }
    if (months === hopeless) continue;
    advance(months);
    const fraction = years - months / 12;
    if (fraction > 0 && law.exceeds(level / reach) + BOUND_TAIL < q) {
      hopeless = months;
      continue;
    }
    if (fraction > 0 && law.exceeds(level / reachOver(fraction)) + BOUND_TAIL < q) continue;
    if (law.exceeds(level, fraction) >= q) {
      // The answer's probability is read from this very grid (a copy kept where `probability` looks) — or, up to
      // s²T = 1, from the conditional lognormal, which may differ by up to 0.0005: then its own first crossing
      // next to this one is the answer.
      if (j > switchAt) gridLaws.set(gridKey(months, s.model, s.capital / s.monthly), law.snapshot());
      if (at(j) >= q) {
        while (j <= switchAt && j > possible && at(j - 1) >= q) j--;
        if (law.months < own) advance(own);
        return found(j);
      }
    }
  }
  return unattainable(NOT_WITHIN_MAX_HORIZON);
}
