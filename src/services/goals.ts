import type { Actor } from '../auth/authorize.js';
import { CpuBudget, type Quota } from '../compute/cpu-budget.js';
import type { ComputePool } from '../compute/pool.js';
import { feasibilityResult, planFeasibility, type FeasibilityInput, type FeasibilityResult } from './feasibility.js';
import { checkGoalAmounts } from './goal-amounts.js';

/** A heavy use case's answer and the caller's CPU budget after it (undefined when the shared counters cannot say). */
export class Metered<T> {
  constructor(
    readonly result: T,
    readonly budget: Quota | undefined,
  ) {}
}

/**
 * Goal feasibility: a pure computation of up to ~100 ms of CPU, run on the compute pool's threads (never on the event
 * loop) and charged to the caller's CPU budget — here, where every interface passes, so REST, GraphQL and MCP spend
 * one budget. A spent budget is 429 quota-exceeded before anything runs; a full pool is 503 service-busy.
 */
export class GoalService {
  constructor(
    private readonly pool: ComputePool,
    private readonly budget: CpuBudget,
  ) {}

  async evaluateFeasibility(actor: Actor<'evaluateGoalFeasibility'>, input: FeasibilityInput): Promise<Metered<FeasibilityResult>> {
    // What the schema cannot say per market (the amounts' minor unit, the market's assumptions) is checked before
    // anything is spent.
    checkGoalAmounts(input);
    const plan = planFeasibility(input);
    const key = CpuBudget.keyOf(actor);
    await this.budget.check(key);
    const computed = await this.pool.run('feasibility', plan.goal);
    const budget = await this.budget.charge(key, computed.cpuMs);
    return new Metered(feasibilityResult(plan, computed.value), budget);
  }
}
