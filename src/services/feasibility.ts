// Goal feasibility for a market: the market's currency and default assumptions (or the caller's own), weighed by the
// engine (src/feasibility/), answered with the assumptions used and where they come from.
import { computeFeasibility, type Feasibility, type Goal } from '../feasibility/index.js';
import { invalidField, UnsupportedMarketError } from './errors.js';
import { getMarket, marketsWithAssumptions, supportedMarkets } from './markets.js';

export interface FeasibilityInput {
  capital: number;
  target: number;
  horizon_years: number;
  market: string;
  monthly_contribution?: number;
  confidence?: number;
  assumptions?: { expected_return: number; volatility: number };
}

export interface FeasibilityAssumptions {
  market: string;
  expected_return: number;
  volatility: number;
  model: Feasibility['model'];
  method: Feasibility['method'];
  /** Documented bound on the probability's absolute error before rounding; null where it has not been measured. */
  method_accuracy: number | null;
  source: 'market' | 'request';
  reference: string;
  /** `historical`: statistics of past annual returns (every market's); `request`: the caller's own figures. */
  basis: 'historical' | 'request';
  /** Years the historical statistics cover (`1928–2023` for US); null for request overrides. */
  period: string | null;
}

export interface FeasibilityResult {
  required_growth_rate: number | null;
  probability: number;
  currency: string;
  confidence: number;
  assumptions: FeasibilityAssumptions;
  suggestions: Feasibility['suggestions'];
}

export const DEFAULT_CONFIDENCE = 0.8;

/** A goal as the engine weighs it, and the market's part of the answer: resolved on the event loop, before anything is spent. */
export interface FeasibilityPlan {
  goal: Goal;
  currency: string;
  market: string;
  source: FeasibilityAssumptions['source'];
  reference: string;
  basis: FeasibilityAssumptions['basis'];
  period: string | null;
}

/** The market's currency and assumptions (or the caller's own) for a goal; refuses a market the engine cannot weigh. */
export function planFeasibility(input: FeasibilityInput): FeasibilityPlan {
  const market = getMarket(input.market);
  if (!market) throw new UnsupportedMarketError([input.market], supportedMarkets());
  const own = input.assumptions;
  const defaults = market.assumptions;
  if (!own && !defaults) {
    throw invalidField(
      'assumptions',
      `is required for market ${market.code}: default capital-market assumptions ship only for ${marketsWithAssumptions().join(', ')} ` +
        '(recomputed from a shipped data set); give your own expected_return and volatility',
    );
  }
  return {
    goal: {
      capital: input.capital,
      target: input.target,
      horizon_years: input.horizon_years,
      monthly_contribution: input.monthly_contribution ?? 0,
      confidence: input.confidence ?? DEFAULT_CONFIDENCE,
      expected_return: own?.expected_return ?? defaults!.expected_return,
      volatility: own?.volatility ?? defaults!.volatility,
      minor_units: market.currency_minor_units,
    },
    currency: market.currency,
    market: market.code,
    source: own ? 'request' : 'market',
    reference: own ? 'supplied by the caller' : defaults!.reference,
    basis: own ? 'request' : defaults!.basis,
    period: own ? null : defaults!.period,
  };
}

/** The answer to a planned goal, from what the engine computed for it (on the compute pool's threads). */
export function feasibilityResult(plan: FeasibilityPlan, answer: Feasibility): FeasibilityResult {
  const { goal } = plan;
  return {
    required_growth_rate: answer.required_growth_rate,
    probability: answer.probability,
    currency: plan.currency,
    confidence: goal.confidence,
    assumptions: {
      market: plan.market,
      expected_return: goal.expected_return,
      volatility: goal.volatility,
      model: answer.model,
      method: answer.method,
      method_accuracy: answer.method_accuracy,
      source: plan.source,
      reference: plan.reference,
      basis: plan.basis,
      period: plan.period,
    },
    suggestions: answer.suggestions,
  };
}

/** The whole use case's computation in-process, synchronously (tests and the in-process benchmark). */
export function evaluateFeasibility(input: FeasibilityInput): FeasibilityResult {
  const plan = planFeasibility(input);
  return feasibilityResult(plan, computeFeasibility(plan.goal));
}
