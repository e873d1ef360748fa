import { evaluateFeasibility, UnsupportedMarketError } from '../src/services/feasibility.js';
import { ProblemError } from '../src/problems.js';
import type { Handler } from './types.js';

export const evaluateGoalFeasibility: Handler<'evaluateGoalFeasibility'> = async ({ body }) => {
  try {
    return { status: 200, body: evaluateFeasibility(body) };
  } catch (error) {
    if (error instanceof UnsupportedMarketError) {
      throw new ProblemError('unsupported-market', error.message, { supported_markets: error.supported });
    }
    throw error;
  }
};
