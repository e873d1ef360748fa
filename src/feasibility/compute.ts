// Goal feasibility: the probability of reaching a target under a lognormal model of market returns, and the
// suggestions (capital needed, horizon needed, target reachable, monthly contribution needed).
import { capitalNeeded, contributionNeeded, targetReachable } from './amounts.js';
import { horizonNeeded } from './horizon.js';
import { logModel } from './laws/model.js';
import { normalQuantile } from './math/normal.js';
import { method, probability, type Scenario } from './probability.js';
import { MAX_GROWTH_RATE, type Feasibility, type Goal } from './types.js';

function requiredGrowthRate(capital: number, target: number, years: number): number | null {
  if (capital <= 0) return null;
  const rate = Math.expm1((Math.log(target) - Math.log(capital)) / years);
  // Too large for a double (e.g. 0.01 → 1e12 in 0.01 years): answered as the documented bound, never null for C > 0.
  return Number.isFinite(rate) ? rate : MAX_GROWTH_RATE;
}

/** Pure and synchronous; its cost is bounded by construction for every goal within the request's bounds. */
export function computeFeasibility(goal: Goal): Feasibility {
  const s: Scenario = {
    capital: goal.capital,
    target: goal.target,
    years: goal.horizon_years,
    monthly: goal.monthly_contribution,
    model: logModel(goal.expected_return, goal.volatility),
  };
  const { confidence, minor_units: decimals } = goal;
  const z = normalQuantile(confidence);
  // The suggestions before the probability: the horizon search steps the log grid past the request's own horizon and
  // keeps the law there, which the probability (and, without capital, the contribution search) then reads.
  const suggestions: Feasibility['suggestions'] = [
    rounded(capitalNeeded(s, z, decimals, confidence)),
    rounded(horizonNeeded(s, z, confidence)),
    rounded(targetReachable(s, z, decimals, confidence)),
    ...(Math.floor(12 * goal.horizon_years) >= 1 ? [rounded(contributionNeeded(s, decimals, confidence))] : []),
  ];
  return {
    required_growth_rate: requiredGrowthRate(s.capital, s.target, s.years),
    probability: roundProbability(probability(s)),
    model: 'lognormal',
    ...method(s),
    suggestions,
  };
}

/** Probabilities are answered to 6 decimal places on every interface (amounts are rounded to the currency's unit). */
const PROBABILITY_DECIMALS = 6;
function roundProbability(p: number): number {
  return Math.round(p * 10 ** PROBABILITY_DECIMALS) / 10 ** PROBABILITY_DECIMALS;
}
function rounded<T extends { probability: number | null }>(suggestion: T): T {
  return suggestion.probability === null ? suggestion : { ...suggestion, probability: roundProbability(suggestion.probability) };
}
