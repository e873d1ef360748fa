// Goal feasibility: the request, the answer and the bounds (feasibility.ts computes it).
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
export interface Honesty { attainable: boolean; reason: string | null }
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
export const HORIZON_DECIMALS = 2;

export const REACHED: Honesty = { attainable: true, reason: null };
