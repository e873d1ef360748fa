// The goal-feasibility engine's public face: everything outside src/feasibility/ imports from here (tests may reach
// the laws inside). It knows no markets, currencies or domain errors: the use case resolves those (src/services/).
export { computeFeasibility } from './compute.js';
export type { Feasibility, Goal } from './types.js';
/** The longest horizon a goal may have (the request's bound): GraphQL weighs a computation by its months. */
export { MAX_HORIZON_YEARS } from './types.js';
