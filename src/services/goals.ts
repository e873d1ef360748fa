import type { Actor } from '../auth/authorize.js';
import { evaluateFeasibility, type FeasibilityInput, type FeasibilityResult } from './feasibility.js';
import { checkGoalAmounts } from './goal-amounts.js';

/** Goal feasibility: a pure computation, bound like every use case so adapters call it the same way. */
export class GoalService {
  evaluateFeasibility(_actor: Actor<'evaluateGoalFeasibility'>, input: FeasibilityInput): FeasibilityResult {
    checkGoalAmounts(input);
    return evaluateFeasibility(input);
  }
}
