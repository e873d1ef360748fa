// Goal feasibility's probability: the model, and the method each scenario is computed with (closed form, the exact
// moments, the conditional lognormal or the log grid), with the laws a request explores kept for those that follow.
import { ContributionLaw } from './laws/conditional-lognormal.js';
import { GridWealth } from './laws/log-grid.js';
import { GridReach } from './laws/log-grid-reach.js';
import type { LogModel } from './laws/model.js';
import { DETERMINISTIC_TOLERANCE, WealthMoments } from './laws/moments.js';
import { normalCdf } from './math/normal.js';
import { Memo } from './memo.js';
import type { Feasibility } from './types.js';

/** ln(wealth) ~ N(nu, tau2); nu = −∞ means wealth is surely 0. */
export interface WealthLaw {
  nu: number;
  tau2: number;
}

export function wholeMonths(years: number): number {
  return Math.floor(12 * years + 1e-9);
}

export function wealthLaw(capital: number, monthly: number, years: number, model: LogModel): WealthLaw {
  if (monthly <= 0) {
    // Closed form: ln W_T = ln C + mT + s√T·Z (the moment-matched law below reduces to this when monthly = 0).
    return { nu: Math.log(capital) + model.m * years, tau2: model.s2 * years };
  }
  const wealth = new WealthMoments(capital, monthly, model);
  const months = wholeMonths(years);
  wealth.advanceTo(months);
  return wealth.lawAfter(Math.max(0, years - months / 12));
}

export function probabilityFromLaw(law: WealthLaw, target: number): number {
  if (target <= 0) return 1;
  if (law.nu === -Infinity) return 0;
  const margin = law.nu - Math.log(target);
  if (law.tau2 <= 0) return margin >= -DETERMINISTIC_TOLERANCE ? 1 : 0;
  return normalCdf(margin / Math.sqrt(law.tau2));
}

export interface Scenario {
  capital: number;
  target: number;
  years: number;
  monthly: number;
  model: LogModel;
}

/** The conditional law of contributions for a horizon and model, kept for the few scenarios a request explores. */
const contributionLaws = new Memo<ContributionLaw>(64);
function contributionLaw(months: number, fraction: number, model: LogModel): ContributionLaw {
  return contributionLaws.get(`${months}|${fraction}|${model.m}|${model.s2}`, () => new ContributionLaw(months, fraction, model));
}

/** The log-grid law of W/c for whole months and a start ratio C/c; the leftover fraction is applied when read. */
export const gridLaws = new Memo<GridWealth>(64, 16 * 1024 * 1024, (law) => law.bytes);
export const gridKey = (months: number, model: LogModel, ratio: number) => `${months}|${ratio}|${model.m}|${model.s2}`;
export function gridLaw(months: number, model: LogModel, ratio: number): GridWealth {
  return gridLaws.get(gridKey(months, model, ratio), () => GridWealth.after(months, model, ratio));
}

/** The backward grid for a level and horizon (laws/log-grid-reach.ts): P from every start ratio C/c at once. */
const reachLaws = new Memo<GridReach>(16, 16 * 1024 * 1024, (law) => law.bytes);
export function reachLaw(months: number, fraction: number, model: LogModel, level: number, maxRatio: number): GridReach {
  return reachLaws.get(
    `${months}|${fraction}|${level}|${maxRatio}|${model.m}|${model.s2}`,
    () => new GridReach(model, months, level, fraction, maxRatio),
  );
}

/**
 * Up to this log variance s²T of the horizon, probabilities with contributions come from wealth's exact first three
 * moments (the shifted lognormal fitting them, laws/moments.ts): within 0.00006 of the log grid at 3 points per sd
 * at s²T = 0.01 and closer below (0.000006 at 0.001), over horizons 1–50 y, μ −0.5–1 and start ratios C/c 0–10,000
 * (test/unit/feasibility-laws.test.ts). Its cost is a few operations a month whatever the volatility, where the
 * conditional lognormal's tables and the log grid's nodes (one per monthly sd) would grow without bound as σ → 0.
 */
export const MOMENT_MATCHED_UP_TO = 0.01;
/**
 * Up to this log variance s²T of the horizon, probabilities with contributions come from the conditional lognormal
 * (laws/conditional-lognormal.ts: within 0.0005 of the log grid over horizons 1–50 y, σ 0.05–0.35, μ −0.05–0.15, start ratios C/c
 * 0–1000 and targets 0.25–3 times the median wealth, measured 0.0004); beyond it its error grows (0.0007 at 1.25,
 * 0.002 at 2.5, 0.019 at 6.4) and the log-grid convolution (laws/log-grid.ts) is used.
 */
export const CONDITIONAL_UP_TO = 1;
/**
 * The documented bound on each method's probability error: the moments and the conditional lognormal as above, the
 * log grid within 0.00005 of one with 4 points per monthly sd (measured 0.000003; 0.00015 at σ 0.6–2, where its step
 * is capped), all within the sampling error of the 1,000,000-path references (test/unit/feasibility-laws.test.ts,
 * test/unit/feasibility-contributions.test.ts).
 */
const CONTRIBUTIONS_ACCURACY = 0.0005;

export function contributes(s: Scenario): boolean {
  return s.monthly > 0 && s.model.s2 > 0 && wholeMonths(s.years) >= 1;
}
export function onGrid(s: Scenario): boolean {
  return contributes(s) && s.model.s2 * s.years > CONDITIONAL_UP_TO;
}
export function momentMatched(s: Scenario): boolean {
  return contributes(s) && s.model.s2 * s.years <= MOMENT_MATCHED_UP_TO;
}

/**
 * P(W ≥ K): in closed form without contributions; with them, from the exact moments at small log variance, by
 * conditioning on the total log-return or, at large log variance, on the log grid. `fast` asks for the conditional
 * lognormal everywhere it would be the grid (searches start from it).
 */
export function probability(s: Scenario, fast = false): number {
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

export function method(s: Scenario): Pick<Feasibility, 'method' | 'method_accuracy'> {
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
export function reaches(s: Scenario, q: number): boolean {
  if (onGrid(s) && s.model.s2 * s.years <= CONDITIONAL_MEASURED_UP_TO) {
    const guess = probability(s, true);
    if (guess >= q + 0.05) return true;
    if (guess < q - 0.05) return false;
  }
  return probability(s) >= q;
}
