// Goal feasibility's computation: the goal it takes, the answer it gives and the bounds it relies on.

/** A goal and the market model to weigh it with; the request's bounds are checked before it gets here. */
export interface Goal {
  capital: number;
  target: number;
  horizon_years: number;
  /** 0 without contributions. */
  monthly_contribution: number;
  confidence: number;
  /** The arithmetic mean and standard deviation of annual returns, as fractions. */
  expected_return: number;
  volatility: number;
  /** Decimals of the currency's minor unit: the amounts suggested are multiples of it. */
  minor_units: number;
}

export type FeasibilityMethod = 'closed_form' | 'moment_matched' | 'conditional_lognormal' | 'log_grid_convolution';

/**
 * Every suggestion says whether it reaches the confidence within the request's own bounds (`attainable`); when it
 * does not, `reason` says why (null otherwise) and the value is the bound itself with its probability.
 */
export interface Honesty {
  attainable: boolean;
  reason: string | null;
}
export interface CapitalNeededSuggestion extends Honesty {
  kind: 'capital_needed';
  capital: number;
  probability: number;
}
export interface HorizonNeededSuggestion extends Honesty {
  kind: 'horizon_needed';
  horizon_years: number | null;
  probability: number | null;
}
export interface TargetReachableSuggestion extends Honesty {
  kind: 'target_reachable';
  target: number;
  probability: number;
}
export interface MonthlyContributionNeededSuggestion extends Honesty {
  kind: 'monthly_contribution_needed';
  monthly_contribution: number;
  probability: number;
}
export type FeasibilitySuggestion =
  CapitalNeededSuggestion | HorizonNeededSuggestion | TargetReachableSuggestion | MonthlyContributionNeededSuggestion;

/** What the computation answers about a goal. */
export interface Feasibility {
  required_growth_rate: number | null;
  probability: number;
  model: 'lognormal';
  /**
   * How the probability is computed: exactly (closed form), from wealth's exact moments (contributions, log variance
   * s²T ≤ 0.01), by conditioning on the total log-return (contributions, s²T ≤ 1) or by convolution on a log grid
   * month by month (contributions, s²T > 1).
   */
  method: FeasibilityMethod;
  /** Documented bound on the probability's absolute error before rounding. */
  method_accuracy: number;
  /** The monthly contribution suggestion is left out when the horizon holds no whole month (no contribution is paid). */
  suggestions: [CapitalNeededSuggestion, HorizonNeededSuggestion, TargetReachableSuggestion, ...MonthlyContributionNeededSuggestion[]];
}

export const MAX_HORIZON_YEARS = 100;
export const MAX_MONTHLY_CONTRIBUTION = 1e9;
/** The request's bounds on capital and target (the spec's `maximum`). */
export const MAX_CAPITAL = 1e12;
export const MAX_TARGET = 1e12;
/** A required growth rate too large for a double is answered as this bound (documented in the spec). */
export const MAX_GROWTH_RATE = Number.MAX_VALUE;
export const HORIZON_DECIMALS = 2;

export const REACHED: Honesty = { attainable: true, reason: null };
