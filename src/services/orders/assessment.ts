// What an approval decides on, before it decides: the account as the checks see it, the kill switch it meets (the one
// in force, or the account's that the day's loss engages now), and every check against a fresh price. The approval
// acts on it (OrderService.judge: it engages the switch, records a block); a preview shows it and changes nothing
// (preview.ts).
import type { components } from '../../../generated/api.js';
import { policyChecks, riskChecks, type AccountState, type CheckResult } from '../checks.js';
import { startOfUtcDay, value, valueAtDayStart } from '../ledger.js';
import type { Quote } from '../market-data.js';
import { dec } from '../money.js';
import type { Decision } from './decision.js';
import { tradeOf } from './transitions.js';

type Policy = components['schemas']['Policy'];
type KillSwitch = components['schemas']['KillSwitch'];

export interface Standing {
  account: AccountState;
  /** The kill switch an approval meets now. */
  killSwitch: KillSwitch;
  /** Why the account's switch engages now (the day's loss reached the policy's limit); null when it does not. */
  engages: string | null;
}

/** The account, valued at the decision's prices, and the kill switch an approval meets. */
export function standingOf(input: Decision, policy: Policy | null, now: Date): Standing {
  const { prices, cash, positions } = input;
  const valuation = value(prices, cash, positions, now);
  const account: AccountState = {
    cash,
    ...(input.buyingPower ? { buyingPower: input.buyingPower } : {}),
    held: new Map(positions.map((p) => [p.symbol, p.quantity])),
    totalValue: valuation.total,
    tradedToday: input.today.traded,
  };
  let killSwitch = input.killSwitch;
  let engages: string | null = null;
  if (policy && !(killSwitch.engaged && killSwitch.level === 'account')) {
    const start = input.dayStartValue ?? valueAtDayStart(prices, cash, positions, input.today, startOfUtcDay(now)).total;
    const loss = start.minus(valuation.total);
    if (loss.greaterThanOrEqualTo(policy.limits.max_daily_loss)) {
      engages = `Daily loss ${loss.toFixed(2)} reached the policy's limit of ${dec(policy.limits.max_daily_loss).toFixed(2)}.`;
      if (!killSwitch.engaged)
        killSwitch = { engaged: true, reason: engages, engaged_at: now.toISOString(), engaged_by: 'system', level: 'account' };
    }
  }
  return { account, killSwitch, engages };
}

/** The policy check (a failed `policy.market` without a policy) and the risk gate, rule by rule, at a fresh price. */
export function checksOf(
  input: Decision,
  policy: Policy | null,
  account: AccountState,
  now: Date,
): { quote: Quote; checks: CheckResult[] } {
  const trade = tradeOf(input.row);
  const quote = input.prices.quote(input.row.symbol, now);
  const checks: CheckResult[] = policy
    ? policyChecks(trade, quote, policy, account)
    : [{ check: 'policy.market', passed: false, message: 'The account has no current policy; create one before approving orders.' }];
  checks.push(...riskChecks(trade, quote, account, now, input.duplicate));
  return { quote, checks };
}
