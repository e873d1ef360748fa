// Goal feasibility: probability of reaching a target under a lognormal model of market returns, plus suggestions.
import { Memo } from './memo.js';
import { ContributionLaw, type LogModel } from './wealth.js';
import { GridReach } from './grid-reach.js';
import { GridWealth } from './wealth-grid.js';
import { DETERMINISTIC_TOLERANCE, WealthMoments } from './wealth-moments.js';
import { invalidField, UnsupportedMarketError } from './errors.js';
import { getMarket, marketsWithAssumptions, supportedMarkets } from './markets.js';
import { normalCdf, normalQuantile } from './normal.js';
import { boundary } from './roots.js';

export interface FeasibilityInput {
  capital: number;
  target: number;
  horizon_years: number;
  market: string;
  monthly_contribution?: number;
  confidence?: number;
  assumptions?: { expected_return: number; volatility: number };
}

export type FeasibilityMethod = 'closed_form' | 'moment_matched' | 'conditional_lognormal' | 'log_grid_convolution';

export interface FeasibilityAssumptions {
  market: string;
  expected_return: number;
  volatility: number;
  model: 'lognormal';
  /**
   * How the probability is computed: exactly (closed form), by conditioning on the total log-return (contributions,
   * log variance s²T ≤ 1) or by convolution on a log grid month by month (contributions, s²T > 1).
   */
  method: FeasibilityMethod;
  /** Documented bound on the probability's absolute error before rounding; null where it has not been measured. */
  method_accuracy: number | null;
  source: 'market' | 'request';
  reference: string;
  /** `historical`: statistics of past annual returns (every market's); `request`: the caller's own figures. */
  basis: 'historical' | 'request';
  /** Years the historical statistics cover (`1928–2023` for US); null for request overrides. */
  period: string | null;
}

/**
 * Every suggestion says whether it reaches the confidence within the request's own bounds (`attainable`); when it
 * does not, `reason` says why (null otherwise) and the value is the bound itself with its probability.
 */
interface Honesty { attainable: boolean; reason: string | null }
export interface CapitalNeededSuggestion extends Honesty { kind: 'capital_needed'; capital: number; probability: number }
export interface HorizonNeededSuggestion extends Honesty {
  kind: 'horizon_needed'; horizon_years: number | null; probability: number | null;
}
export interface TargetReachableSuggestion extends Honesty { kind: 'target_reachable'; target: number; probability: number }
export interface MonthlyContributionNeededSuggestion extends Honesty {
  kind: 'monthly_contribution_needed'; monthly_contribution: number; probability: number;
}
export type FeasibilitySuggestion =
  | CapitalNeededSuggestion
  | HorizonNeededSuggestion
  | TargetReachableSuggestion
  | MonthlyContributionNeededSuggestion;

export interface FeasibilityResult {
  required_growth_rate: number | null;
  probability: number;
  currency: string;
  confidence: number;
  assumptions: FeasibilityAssumptions;
  /** The monthly contribution suggestion is left out when the horizon holds no whole month (no contribution is paid). */
  suggestions: [CapitalNeededSuggestion, HorizonNeededSuggestion, TargetReachableSuggestion, ...MonthlyContributionNeededSuggestion[]];
}

export const DEFAULT_CONFIDENCE = 0.8;
export const MAX_HORIZON_YEARS = 100;
export const MAX_MONTHLY_CONTRIBUTION = 1e9;
/** The request's bounds on capital and target (the spec's `maximum`). */
export const MAX_CAPITAL = 1e12;
export const MAX_TARGET = 1e12;
/** A required growth rate too large for a double is answered as this bound (documented in the spec). */
export const MAX_GROWTH_RATE = Number.MAX_VALUE;
const HORIZON_DECIMALS = 2;

// LogModel: annual log-return N(m, s²) of a lognormal with arithmetic mean μ and standard deviation σ.

function logModel(mu: number, sigma: number): LogModel {
  const s2 = Math.log1p((sigma / (1 + mu)) ** 2);
  return { m: Math.log1p(mu) - s2 / 2, s2 };
}

/** ln(wealth) ~ N(nu, tau2); nu = −∞ means wealth is surely 0. */
interface WealthLaw { nu: number; tau2: number }

function wholeMonths(years: number): number {
  return Math.floor(12 * years + 1e-9);
}

function wealthLaw(capital: number, monthly: number, years: number, model: LogModel): WealthLaw {
  if (monthly <= 0) {
    // Closed form: ln W_T = ln C + mT + s√T·Z (the moment-matched law below reduces to this when monthly = 0).
    return { nu: Math.log(capital) + model.m * years, tau2: model.s2 * years };
  }
  const wealth = new WealthMoments(capital, monthly, model);
  const months = wholeMonths(years);
  wealth.advanceTo(months);
  return wealth.lawAfter(Math.max(0, years - months / 12));
}

function probabilityFromLaw(law: WealthLaw, target: number): number {
  if (target <= 0) return 1;
  if (law.nu === -Infinity) return 0;
  const margin = law.nu - Math.log(target);
  if (law.tau2 <= 0) return margin >= -DETERMINISTIC_TOLERANCE ? 1 : 0;
  return normalCdf(margin / Math.sqrt(law.tau2));
}

interface Scenario { capital: number; target: number; years: number; monthly: number; model: LogModel }

/** The conditional law of contributions for a horizon and model, kept for the few scenarios a request explores. */
const contributionLaws = new Memo<ContributionLaw>(64);
function contributionLaw(months: number, fraction: number, model: LogModel): ContributionLaw {
  return contributionLaws.get(`${months}|${fraction}|${model.m}|${model.s2}`, () => new ContributionLaw(months, fraction, model));
}

/** The log-grid law of W/c for whole months and a start ratio C/c; the leftover fraction is applied when read. */
const gridLaws = new Memo<GridWealth>(64, 32 * 1024 * 1024, (law) => law.bytes);
const gridKey = (months: number, model: LogModel, ratio: number) => `${months}|${ratio}|${model.m}|${model.s2}`;
function gridLaw(months: number, model: LogModel, ratio: number): GridWealth {
  return gridLaws.get(gridKey(months, model, ratio), () => GridWealth.after(months, model, ratio));
}


/** The backward grid for a level and horizon (grid-reach.ts): P from every start ratio C/c at once. */
const reachLaws = new Memo<GridReach>(16, 32 * 1024 * 1024, (law) => law.bytes);
function reachLaw(months: number, fraction: number, model: LogModel, level: number, maxRatio: number): GridReach {
  return reachLaws.get(`${months}|${fraction}|${level}|${maxRatio}|${model.m}|${model.s2}`, () => new GridReach(model, months, level, fraction, maxRatio));
}

/**
 * Up to this log variance s²T of the horizon, probabilities with contributions come from wealth's exact first three
 * moments (the shifted lognormal fitting them, wealth-moments.ts): within 0.00006 of the log grid at 3 points per sd
 * at s²T = 0.01 and closer below (0.000006 at 0.001), over horizons 1–50 y, μ −0.5–1 and start ratios C/c 0–10,000
 * (test/unit/feasibility.test.ts). Its cost is a few operations a month whatever the volatility, where the
 * conditional lognormal's tables and the log grid's nodes (one per monthly sd) would grow without bound as σ → 0.
 */
const MOMENT_MATCHED_UP_TO = 0.01;
/**
 * Up to this log variance s²T of the horizon, probabilities with contributions come from the conditional lognormal
 * (wealth.ts: within 0.0005 of the log grid over horizons 1–50 y, σ 0.05–0.35, μ −0.05–0.15, start ratios C/c
 * 0–1000 and targets 0.25–3 times the median wealth, measured 0.0004); beyond it its error grows (0.0007 at 1.25,
 * 0.002 at 2.5, 0.019 at 6.4) and the log-grid convolution (wealth-grid.ts) is used.
 */
const CONDITIONAL_UP_TO = 1;
/**
 * The documented bound on each method's probability error: the moments and the conditional lognormal as above, the
 * log grid within 0.00005 of one with 4 points per monthly sd (measured 0.000003; 0.00015 at σ 0.6–2, where its step
 * is capped), all within the sampling error of the 1,000,000-path references (test/unit/feasibility.test.ts).
 */
const CONTRIBUTIONS_ACCURACY = 0.0005;

function contributes(s: Scenario): boolean {
  return s.monthly > 0 && s.model.s2 > 0 && wholeMonths(s.years) >= 1;
}
function onGrid(s: Scenario): boolean {
  return contributes(s) && s.model.s2 * s.years > CONDITIONAL_UP_TO;
}
function momentMatched(s: Scenario): boolean {
  return contributes(s) && s.model.s2 * s.years <= MOMENT_MATCHED_UP_TO;
}

/**
 * P(W ≥ K): in closed form without contributions; with them, from the exact moments at small log variance, by
 * conditioning on the total log-return or, at large log variance, on the log grid. `fast` asks for the conditional
 * lognormal everywhere it would be the grid (searches start from it).
 */
function probability(s: Scenario, fast = false): number {
  if (contributes(s) && s.target > 0) {
    const months = wholeMonths(s.years);
    const fraction = Math.max(0, s.years - months / 12);
    if (momentMatched(s)) {
      const wealth = new WealthMoments(s.capital, s.monthly, s.model);
      wealth.advanceTo(months);
      return wealth.exceeds(s.target, fraction);
    }
    if (!fast && onGrid(s)) return gridLaw(months, s.model, s.capital / s.monthly).exceeds(s.target / s.monthly, fraction);
    return contributionLaw(months, fraction, s.model).probability(s.capital, s.monthly, s.target);
  }
  return probabilityFromLaw(wealthLaw(s.capital, s.monthly, s.years, s.model), s.target);
}

/** Error bound of the closed form (lump sums and zero volatility), as tested against an independent integration. */
const CLOSED_FORM_ACCURACY = 1e-6;

function method(s: Scenario): Pick<FeasibilityAssumptions, 'method' | 'method_accuracy'> {
  if (!contributes(s)) return { method: 'closed_form', method_accuracy: CLOSED_FORM_ACCURACY };
  const name = momentMatched(s) ? 'moment_matched' : onGrid(s) ? 'log_grid_convolution' : 'conditional_lognormal';
  return { method: name, method_accuracy: CONTRIBUTIONS_ACCURACY };
}

/** Up to this s²T the conditional lognormal was measured within 0.02 of the log grid (0.019 at 6.4); beyond, not. */
const CONDITIONAL_MEASURED_UP_TO = 6.5;

/**
 * Whether P ≥ q in scenario `s`. On the log grid each new capital or contribution costs a convolution; where the
 * conditional lognormal's error was measured and it clears q by 0.05 either way, it decides, and only closer calls
 * are computed.
 */
function reaches(s: Scenario, q: number): boolean {
  if (onGrid(s) && s.model.s2 * s.years <= CONDITIONAL_MEASURED_UP_TO) {
    const guess = probability(s, true);
    if (guess >= q + 0.05) return true;
    if (guess < q - 0.05) return false;
  }
  return probability(s) >= q;
}

/**
 * Four times the largest difference measured between the backward grid's P and the forward grid's (0.0042 over 150
 * random laws of the grid's region, with and without a leftover fraction): where the backward grid clears q by this
 * much, it decides alone.
 */
const REACH_MARGIN = 0.02;

/** Whether the exact P reaches q, read from a stand-in within `margin` of it where that clears q either way. */
function atLeast(exact: () => number, proxy: () => number, q: number, margin: number): boolean {
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
function solveOnGrid(
  prob: (x: number) => number, fastAround: (x: number) => (y: number) => number, q: number, estimate: number, max: number,
  decimals: number, reach = Infinity,
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
function solveNear(f: (x: number) => number, level: number, near: number, max: number, resolution: number): number {
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
function roundTo(x: number, decimals: number, direction: 'up' | 'down'): number {
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
function roundedWithProbability(
  x: number, decimals: number, direction: 'up' | 'down', q: number, prob: (v: number) => number, limit: number,
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
const SEARCH_RESOLUTION = 0.25;

/** `boundary` for a probability, its secant steps on the probit scale, where P rises nearly linearly. */
function probabilityBoundary(f: (x: number) => number, q: number, bad: number, good: number, resolution: number): number {
  return boundary(f, q, bad, good, resolution, true, normalQuantile);
}

/**
 * A bracket [bad, good] of an increasing f at q in [0, max] (f(0) < q ≤ f(max)) by factors of 2 from `near`: the
 * answer is usually within a few of them of the request's own amount or a closed-form estimate, where a geometric
 * bisection from the whole range would take five or six evaluations more. Beyond eight factors, what is left of the
 * range is returned.
 */
function bracket(f: (x: number) => number, q: number, near: number, max: number): [number, number] {
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
function memo(f: (x: number) => number): (x: number) => number {
  const known = new Map<number, number>();
  return (x) => {
    let value = known.get(x);
    if (value === undefined) known.set(x, (value = f(x)));
    return value;
  };
}


const REACHED: Honesty = { attainable: true, reason: null };

function capitalNeeded(s: Scenario, z: number, decimals: number, q: number): CapitalNeededSuggestion {
  const prob = memo((capital: number) => probability({ ...s, capital }));
  const { m, s2 } = s.model;
  const beyond = (): CapitalNeededSuggestion => ({
    kind: 'capital_needed', capital: MAX_CAPITAL, probability: prob(MAX_CAPITAL), attainable: false,
    reason: `No starting capital up to the request's maximum (${MAX_CAPITAL}) reaches the confidence; the capital and probability given are that maximum's.`,
  });
  // Without contributions, P ≥ q ⇔ C ≥ K·exp(−mT + z·s·√T); with them, that is where the search starts.
  let estimate = s.target * Math.exp(-m * s.years + z * Math.sqrt(s2 * s.years));
  const grid = s.monthly > 0 && onGrid(s);
  // On the log grid every capital is a new convolution (the start ratio C/c): the backward grid gives P for all of
  // them from one, within REACH_MARGIN, and the forward grid computes only the amounts the search settles on.
  let proxy: ((capital: number) => number) | undefined;
  const fast = memo(grid ? (capital: number) => (proxy ??= capitalProxy(s, decimals))(capital) : (capital: number) => probability({ ...s, capital }, true));
  if (s.monthly > 0) {
    // Without capital, P is computed exactly (its law serves the contribution search too); the largest capital is
    // decided by the backward grid where it is clear.
    if (prob(0) >= q) return { kind: 'capital_needed', capital: 0, probability: prob(0), ...REACHED };
    const enough = grid ? atLeast(() => prob(MAX_CAPITAL), () => fast(MAX_CAPITAL), q, REACH_MARGIN) : reaches({ ...s, capital: MAX_CAPITAL }, q);
    if (!enough) return beyond();
    // From the lump-sum estimate, bracketed by factors of 2 (bisecting from the bound would take ~25 more steps),
    // with the cheap method; on the log grid that answer is then refined.
    estimate = Number.isNaN(estimate) ? MAX_CAPITAL : Math.min(MAX_CAPITAL, Math.max(estimate, 10 ** -decimals));
    const [short, long] = bracket(fast, q, estimate, MAX_CAPITAL);
    estimate = probabilityBoundary(fast, q, short, long, SEARCH_RESOLUTION * 10 ** -decimals);
  } else if (!(estimate <= MAX_CAPITAL)) {
    return beyond();
  }
  const { value, probability: p } = grid ? solveOnGrid(prob, () => fast, q, estimate, MAX_CAPITAL, decimals)
    : roundedWithProbability(estimate, decimals, 'up', q, prob, MAX_CAPITAL);
  if (p < q) return beyond();
  return { kind: 'capital_needed', capital: value, probability: p, ...REACHED };
}

/** The factor by which the contribution search's stand-in, a local one, may move the amount in one step. */
const CONTRIBUTION_STEP = 256;

/** The largest start ratio C/c a search may ask about: the largest capital over the smallest contribution. */
function largestRatio(decimals: number): number {
  return MAX_CAPITAL * 10 ** decimals;
}

/** P as a function of the capital on the log grid, from the backward grid at the request's level and horizon. */
function capitalProxy(s: Scenario, decimals: number): (capital: number) => number {
  const months = wholeMonths(s.years);
  const law = reachLaw(months, Math.max(0, s.years - months / 12), s.model, s.target / s.monthly, largestRatio(decimals));
  return (capital) => law.reach(capital / s.monthly);
}

/**
 * P as a function of the contribution near `anchor` on the log grid: a contribution c moves both the start ratio
 * C/c and the level K/c. The forward grid at the anchor's ratio gives P for every level exactly; the backward grid
 * at the anchor's level gives it for every ratio (grid-reach.ts). Along c the two partial changes nearly cancel (more
 * contribution, less capital relative to it), so their sum misses P's change by their interaction, Δln ρ·Δln ℓ times
 * a mixed derivative that each new anchor measures from what the last stand-in predicted there: with it, a step lands
 * within a small fraction of the remaining distance.
 */
function contributionProxy(s: Scenario, unit: number): (anchor: number) => (monthly: number) => number {
  const months = wholeMonths(s.years);
  const fraction = Math.max(0, s.years - months / 12);
  const none = probability({ ...s, monthly: 0 });
  let back: GridReach | undefined;
  let level = 0;
  let mixed = 0;
  let last: { anchor: number; predict: (monthly: number) => number } | undefined;
  return (amount) => {
    // Around no contribution at all (P there is the closed form's), the grids of the smallest one.
    const anchor = Math.max(amount, unit);
    // The backward grid is made again where the level has moved on by more than 2 %.
    if (!back || Math.abs(Math.log(s.target / anchor / level)) > 0.02) {
      level = s.target / anchor;
      back = reachLaw(months, fraction, s.model, level, largestRatio(-Math.log10(unit)));
    }
    const forward = gridLaw(months, s.model, s.capital / anchor);
    const here = forward.exceeds(s.target / anchor, fraction);
    const moved = last ? Math.log(anchor / last.anchor) : 0;
    if (last && Math.abs(moved) > 1e-9) mixed += (here - last.predict(anchor)) / (moved * moved);
    const sensitivity = back;
    const base = sensitivity.reach(s.capital / anchor);
    const predict = (monthly: number) => {
      if (monthly < unit) return none;
      const step = Math.log(monthly / anchor);
      return forward.exceeds(s.target / monthly, fraction) + sensitivity.reach(s.capital / monthly) - base + mixed * step * step;
    };
    last = { anchor, predict };
    return predict;
  };
}

function unattainable(reason: string): HorizonNeededSuggestion {
  return { kind: 'horizon_needed', attainable: false, reason, horizon_years: null, probability: null };
}
const NOT_WITHIN_MAX_HORIZON = `The confidence is not reached within the request's maximum horizon (${MAX_HORIZON_YEARS} years).`;

function horizonNeeded(s: Scenario, z: number, q: number): HorizonNeededSuggestion {
  if (s.target <= s.capital) return { kind: 'horizon_needed', ...REACHED, horizon_years: 0, probability: 1 };
  const prob = (years: number) => probability({ ...s, years });
  if (s.monthly > 0) return searchHorizon(s, q, prob);
  const { m, s2 } = s.model;
  if (s.capital <= 0) return unattainable('Without capital or contributions the wealth stays 0.');
  if (m <= 0) {
    return unattainable('The log drift of the returns is not positive and no contributions are paid, so waiting longer does not raise the probability to the confidence.');
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

function targetReachable(s: Scenario, z: number, decimals: number, q: number): TargetReachableSuggestion {
  const prob = memo((target: number) => probability({ ...s, target }));
  // P(W ≥ K) = Φ((ν − ln K)/τ) ≥ q ⇔ K ≤ exp(ν − zτ) under the two-moment fit (exact without contributions): the
  // start; with contributions the largest K whose probability reaches q is then searched for (P falls as K rises).
  const law = wealthLaw(s.capital, s.monthly, s.years, s.model);
  let reachable = law.nu === -Infinity ? 0 : Math.exp(law.nu - z * Math.sqrt(law.tau2));
  if (s.monthly > 0 && reachable > 0 && Number.isFinite(reachable)) {
    let low = reachable;
    for (let i = 0; i < 200 && low > 0 && prob(low) < q; i++) low /= 1.25;
    let high = Math.max(low, reachable);
    for (let i = 0; i < 200 && prob(high) >= q && Number.isFinite(high * 1.25); i++) high *= 1.25;
    reachable = prob(high) >= q ? high : probabilityBoundary(prob, q, high, low, SEARCH_RESOLUTION * 10 ** -decimals);
  }
  const { value, probability: p } = roundedWithProbability(reachable, decimals, 'down', q, prob, MAX_TARGET);
  if (value <= 0 || p < q) {
    const smallest = 10 ** -decimals;
    return {
      kind: 'target_reachable', target: smallest, probability: prob(smallest), attainable: false,
      reason: `Not even the smallest positive target (${smallest}) is reached with the confidence; the target and probability given are that smallest one's.`,
    };
  }
  return { kind: 'target_reachable', target: value, probability: p, ...REACHED };
}

/**
 * The contribution whose mean wealth is the target (mean wealth is linear in it), where the search brackets the
 * answer from: a few factors of 2 at most, where the request's own contribution may be many away. Undefined when the
 * capital alone has that mean.
 */
function contributionGuess(s: Scenario): number | undefined {
  const months = wholeMonths(s.years);
  const growth = Math.exp((s.model.m + s.model.s2 / 2) * Math.max(0, s.years - months / 12));
  const perUnit = new WealthMoments(0, 1, s.model);
  perUnit.advanceTo(months);
  const guess = (s.target - s.capital * Math.exp((s.model.m + s.model.s2 / 2) * s.years)) / (perUnit.mean * growth);
  return guess > 0 && Number.isFinite(guess) ? guess : undefined;
}

function contributionNeeded(s: Scenario, decimals: number, q: number): MonthlyContributionNeededSuggestion {
  const prob = memo((monthly: number) => probability({ ...s, monthly }));
  const resolution = SEARCH_RESOLUTION * 10 ** -decimals;
  const answer = (monthly: number) => roundedWithProbability(monthly, decimals, 'up', q, prob, MAX_MONTHLY_CONTRIBUTION);
  const { value, probability: p } = ((): { value: number; probability: number } => {
    if (prob(0) >= q) return answer(0);
    // Capital only adds to wealth: where the contributions alone reach q (the law without capital, which the capital
    // search computed), the largest contribution does.
    const alone = s.capital > 0 && reaches({ ...s, capital: 0, monthly: MAX_MONTHLY_CONTRIBUTION }, q);
    if (!alone && !reaches({ ...s, monthly: MAX_MONTHLY_CONTRIBUTION }, q)) return answer(MAX_MONTHLY_CONTRIBUTION);
    if (s.capital > 0 && onGrid({ ...s, monthly: 1 })) {
      // On the log grid each contribution changes the start ratio C/c (a new convolution): the search steps with the
      // forward and backward grids around each amount it computes, from the request's own (whose grids the other
      // suggestions computed). Without capital the ratio stays 0 and one grid serves every contribution.
      const proxy = contributionProxy(s, 10 ** -decimals);
      // Without a contribution of its own, the request's law has no grid to step from: the conditional lognormal's
      // answer is the first amount.
      const fast = memo((monthly: number) => probability({ ...s, monthly }, true));
      const guess = () => {
        const [short, enough] = bracket(fast, q, contributionGuess(s) ?? 1, MAX_MONTHLY_CONTRIBUTION);
        return probabilityBoundary(fast, q, short, enough, resolution);
      };
      const own = s.monthly > 0 ? solveNear(proxy(s.monthly), q, s.monthly, MAX_MONTHLY_CONTRIBUTION, resolution) : NaN;
      const start = own >= s.monthly / CONTRIBUTION_STEP && own <= s.monthly * CONTRIBUTION_STEP ? own : guess();
      return solveOnGrid(prob, proxy, q, start, MAX_MONTHLY_CONTRIBUTION, decimals, CONTRIBUTION_STEP);
    }
    const [short, enough] = bracket(prob, q, contributionGuess(s) ?? s.monthly, MAX_MONTHLY_CONTRIBUTION);
    return answer(probabilityBoundary(prob, q, short, enough, resolution));
  })();
  if (p < q) {
    return {
      kind: 'monthly_contribution_needed', monthly_contribution: MAX_MONTHLY_CONTRIBUTION, probability: prob(MAX_MONTHLY_CONTRIBUTION),
      attainable: false,
      reason: `No monthly contribution up to the request's maximum (${MAX_MONTHLY_CONTRIBUTION}) reaches the confidence; the contribution and probability given are that maximum's.`,
    };
  }
  return { kind: 'monthly_contribution_needed', monthly_contribution: value, probability: p, ...REACHED };
}

function requiredGrowthRate(capital: number, target: number, years: number): number | null {
  if (capital <= 0) return null;
  const rate = Math.expm1((Math.log(target) - Math.log(capital)) / years);
  // Too large for a double (e.g. 0.01 → 1e12 in 0.01 years): answered as the documented bound, never null for C > 0.
  return Number.isFinite(rate) ? rate : MAX_GROWTH_RATE;
}

/** Pure computation; the request's bounds are validated before this is called. */
export function evaluateFeasibility(input: FeasibilityInput): FeasibilityResult {
  const market = getMarket(input.market);
  if (!market) throw new UnsupportedMarketError([input.market], supportedMarkets());
  const own = input.assumptions;
  const defaults = market.assumptions;
  if (!own && !defaults) {
    throw invalidField('assumptions', `is required for market ${market.code}: default capital-market assumptions ship only for ${marketsWithAssumptions().join(', ')} (recomputed from a shipped data set); give your own expected_return and volatility`);
  }
  const confidence = input.confidence ?? DEFAULT_CONFIDENCE;
  const expectedReturn = own?.expected_return ?? defaults!.expected_return;
  const volatility = own?.volatility ?? defaults!.volatility;
  const s: Scenario = {
    capital: input.capital,
    target: input.target,
    years: input.horizon_years,
    monthly: input.monthly_contribution ?? 0,
    model: logModel(expectedReturn, volatility),
  };
  const z = normalQuantile(confidence);
  const decimals = market.currency_minor_units;
  // The suggestions before the probability: the horizon search steps the log grid past the request's own horizon and
  // keeps the law there, which the probability (and, without capital, the contribution search) then reads.
  const suggestions: FeasibilityResult['suggestions'] = [
    rounded(capitalNeeded(s, z, decimals, confidence)),
    rounded(horizonNeeded(s, z, confidence)),
    rounded(targetReachable(s, z, decimals, confidence)),
    ...(Math.floor(12 * input.horizon_years) >= 1 ? [rounded(contributionNeeded(s, decimals, confidence))] : []),
  ];
  return {
    required_growth_rate: requiredGrowthRate(s.capital, s.target, s.years),
    probability: roundProbability(probability(s)),
    currency: market.currency,
    confidence,
    assumptions: {
      market: market.code,
      expected_return: expectedReturn,
      volatility,
      model: 'lognormal',
      ...method(s),
      source: own ? 'request' : 'market',
      reference: own ? 'supplied by the caller' : defaults!.reference,
      basis: own ? 'request' : defaults!.basis,
      period: own ? null : defaults!.period,
    },
    suggestions,
  };
}

/** Probabilities are answered to 6 decimal places on every interface (amounts are rounded to the currency's unit). */
export const PROBABILITY_DECIMALS = 6;
function roundProbability(p: number): number {
  return Math.round(p * 10 ** PROBABILITY_DECIMALS) / 10 ** PROBABILITY_DECIMALS;
}
function rounded<T extends { probability: number | null }>(suggestion: T): T {
  return suggestion.probability === null ? suggestion : { ...suggestion, probability: roundProbability(suggestion.probability) };
}
