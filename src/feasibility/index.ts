// The goal-feasibility engine's public face: everything outside src/feasibility/ imports from here (tests may reach
// the laws inside). It knows no markets, currencies or domain errors: the use case resolves those (src/services/).
export { computeFeasibility } from './compute.js';
export type {
  CapitalNeededSuggestion, Feasibility, FeasibilityMethod, FeasibilitySuggestion, Goal, HorizonNeededSuggestion,
  MonthlyContributionNeededSuggestion, TargetReachableSuggestion,
} from './types.js';
export { MAX_CAPITAL, MAX_GROWTH_RATE, MAX_HORIZON_YEARS, MAX_MONTHLY_CONTRIBUTION, MAX_TARGET } from './types.js';
