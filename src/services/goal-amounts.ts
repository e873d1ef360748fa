import { InvalidInputError } from './errors.js';
import type { FeasibilityInput } from './feasibility.js';
import { getMarket } from './markets.js';

const AMOUNTS = ['capital', 'target', 'monthly_contribution'] as const;

/**
 * A goal's amount that is not 0 is at least its currency's minor unit (0.01 USD, 1 JPY), as GoalFeasibilityRequest
 * documents: the schema states the bounds that hold in every currency (a per-market `minimum` would need
 * `if`/`then` branches that SDK generators turn into wrapper types), this adds the market's own. An unsupported
 * market is left to the use case, which answers it 422 with the supported ones.
 */
export function checkGoalAmounts(input: FeasibilityInput): void {
  const market = getMarket(input.market);
  if (!market) return;
  const unit = 10 ** -market.currency_minor_units;
  const tooSmall = AMOUNTS.filter((name) => {
    const amount = input[name];
    return amount !== undefined && amount !== 0 && amount < unit;
  });
  if (tooSmall.length === 0) return;
  throw new InvalidInputError(
    tooSmall.map((field) => ({
      field,
      detail: `must be ${field === 'target' ? '' : '0 or '}at least ${unit} ${market.currency}, the currency's minor unit`,
    })),
  );
}
