// Goal feasibility: probability of reaching a target under a lognormal model of market returns, plus suggestions.
import { invalidField, UnsupportedMarketError } from './errors.js';
import { getMarket, marketsWithAssumptions, supportedMarkets } from './markets.js';
import { normalQuantile } from './normal.js';
import { capitalNeeded, contributionNeeded, targetReachable } from './feasibility-amounts.js';
import { horizonNeeded } from './feasibility-horizon.js';
import { logModel, method, probability, type Scenario } from './feasibility-laws.js';
import { DEFAULT_CONFIDENCE, MAX_GROWTH_RATE, type FeasibilityInput, type FeasibilityResult } from './feasibility-types.js';

export * from './feasibility-types.js';

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
