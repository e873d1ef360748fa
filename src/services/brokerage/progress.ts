// What a broker's word about an order changes here: the state it reaches and the execution to book, if any. Pure, so
// that a repeated or late update provably changes nothing (the stream repeats; polling and the stream overlap).
import type { BrokerOrder } from '../../brokers/port.js';
import { D, dec, roundPrice, type Dec } from '../money.js';

/** The order as stored: where it stands and what it has booked so far. */
export interface BookedOrder {
  status: string;
  quantity: string;
  /** Cumulative shares booked. */
  filled_quantity: string;
  /** Average price of what was booked; null before the first execution. */
  fill_price: string | null;
}

/** States in which an order is at the broker and may still change there. */
export const AT_BROKER = ['submitted', 'partially_filled'] as const;

export interface Progress {
  /** The state to record; undefined when the state does not change (the broker's words are still stored). */
  to?: 'partially_filled' | 'filled' | 'cancelled' | 'expired' | 'rejected';
  /** Shares executed since what was booked, and their price: cash and the position move by this. */
  execution?: { quantity: Dec; price: Dec };
  /** The cumulative quantity and average price after it. */
  filledQuantity: Dec;
  averagePrice: Dec | null;
  /** Why, in words, for the event. */
  reason: string | null;
}

const ENDINGS = { canceled: 'cancelled', expired: 'expired', rejected: 'rejected' } as const;

/**
 * The step the broker's order calls for. Executions are booked from the cumulative quantity and average price the
 * broker states (never from the message itself), so an update applied twice, or a poll after the stream, books
 * nothing more; an order already final here changes no more. The price of the new shares is what makes the stated
 * average: (average × cumulative − booked average × booked) / new shares.
 */
export function progressOf(booked: BookedOrder, broker: BrokerOrder, brokerName: string): Progress {
  const bookedQuantity = dec(booked.filled_quantity);
  const bookedPrice = booked.fill_price === null ? null : dec(booked.fill_price);
  const unchanged: Progress = { filledQuantity: bookedQuantity, averagePrice: bookedPrice, reason: null };
  if (!(AT_BROKER as readonly string[]).includes(booked.status)) return unchanged;

  const cumulative = D.min(broker.filledQuantity, dec(booked.quantity));
  let progress = unchanged;
  if (cumulative.greaterThan(bookedQuantity) && broker.averageFillPrice) {
    const added = cumulative.minus(bookedQuantity);
    const cost = broker.averageFillPrice.times(cumulative).minus((bookedPrice ?? new D(0)).times(bookedQuantity));
    const price = roundPrice(cost.dividedBy(added));
    const complete = cumulative.equals(dec(booked.quantity));
    progress = {
      to: complete ? 'filled' : 'partially_filled',
      execution: { quantity: added, price },
      filledQuantity: cumulative,
      averagePrice: roundPrice(broker.averageFillPrice),
      reason: `${complete ? 'filled' : 'partially filled'} by ${brokerName}: ${added.toFixed()} at ${price.toFixed(2)}`,
    };
  }
  const ending = ENDINGS[broker.status as keyof typeof ENDINGS];
  if (ending && progress.to !== 'filled') {
    const kept = progress.filledQuantity.isZero() ? '' : `; the ${progress.filledQuantity.toFixed()} shares filled stay filled`;
    return { ...progress, to: ending, reason: `${broker.brokerStatus} by ${brokerName}${kept}` };
  }
  return progress;
}
