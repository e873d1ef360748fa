// What an approval decides on and what it yields, shared by the paper broker's approval (service.ts) and a connected
// broker's (broker-approval.ts).
import type { Order as OrderRow } from '../../../db/schema.js';
import type { ProblemError } from '../../problems.js';
import type { PriceSource, Quote } from '../market-data.js';
import type { Dec } from '../money.js';
import type { Step } from './transitions.js';
import type { TriggerState } from './trigger-state.js';
import { eventView, type Order } from './views.js';

type OrderEvent = Order['events'][number];

/** A transition's transaction either yields the order or a problem to raise after the commit (state it wrote stays). */
export type Outcome = { order: Order } | { problem: ProblemError };

/** The order's state under its lock, with the prices and money the decision is made on. */
export interface Decision extends TriggerState {
  prices: PriceSource;
  cash: Dec;
  /** What the broker lets the account spend, when it says (a connected account); cash otherwise. */
  buyingPower?: Dec;
  /** The account's value when the day began, when the broker states it; else derived from the day's fills. */
  dayStartValue?: Dec;
  /** The preview the approval is bound to (checked by bindPreview): its steps record it. */
  previewId?: string;
}

/** A refusal (or the expiry), or approval at the price the checks passed at. */
export type Decided = Outcome | { approved: true; quote: Quote };

/** The events `steps` record, as the contract shows them; `actorName` names the caller (the steps it took). */
export const eventsOf = (row: OrderRow, steps: Step[], actorName: string | null): OrderEvent[] => {
  let from: string = row.status;
  return steps.map((step) => {
    const event = eventView({
      from_status: from,
      to_status: step.to,
      at: step.at,
      client_id: step.clientId,
      reason: step.reason,
      client_name: actorName,
      person_name: actorName,
      preview_id: step.previewId ?? null,
    });
    from = step.to;
    return event;
  });
};
