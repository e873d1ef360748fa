import { evaluateFeasibility } from '../src/services/feasibility.js';
import type { Handler } from './types.js';

export const evaluateGoalFeasibility: Handler<'evaluateGoalFeasibility'> = async ({ body }) => ({ status: 200, body: evaluateFeasibility(body) });
