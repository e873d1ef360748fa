import { quotaHeaders } from '../src/http/rate-limit-replies.js';
import type { Handler } from './types.js';

export const evaluateGoalFeasibility: Handler<'evaluateGoalFeasibility'> = async ({ actor, body, services }) => {
  const { result, budget } = await services.goals.evaluateFeasibility(actor, body);
  // The CPU budget's state joins the route limit's in RateLimit and RateLimit-Policy (when its store could say).
  return { status: 200, body: result, ...(budget ? { headers: quotaHeaders([budget]) } : {}) };
};
