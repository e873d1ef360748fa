import type { Handler } from './types.js';

export const evaluateGoalFeasibility: Handler<'evaluateGoalFeasibility'> = async ({ actor, body, services }) => ({
  status: 200,
  body: services.goals.evaluateFeasibility(actor, body),
});
