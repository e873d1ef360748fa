import type { Order } from '../services/orders/views.js';
import { actorLabel, at, failedChecks, moneyFormat, quantity, stateLabel } from './format.js';
import { html, type Html } from './html.js';
import { csrfField } from './layout.js';
import type { Visitor } from './visitor.js';

type OrderEvent = Order['events'][number];

const SUPERSEDED = /^superseded by idea (idea_\S+)$/;

/** Who proposed the order: its idea's client, or the assistant through it. */
export function proposer(order: Order, modes: Map<string, string>): string {
  const first = order.events[0];
  const who = actorLabel(first?.actor);
  return order.idea_id && modes.get(order.idea_id) === 'assistant' ? `the assistant, via ${who}` : who;
}

/** The event that decided the order (the first one out of `proposed`), if any. */
export const decision = (order: Order): OrderEvent | undefined => order.events.find((e) => e.from === 'proposed');

/** Who decided, and how, in words; a link to the idea that superseded it. */
export function decider(order: Order): Html | string {
  const event = decision(order);
  if (!event) return order.status === 'proposed' ? 'awaiting your decision' : '—';
  if (event.to === 'expired') return 'nobody (it expired)';
  const superseded = event.reason ? SUPERSEDED.exec(event.reason)?.[1] : undefined;
  if (superseded) return html`${actorLabel(event.actor)}: replaced by <a href="/ideas/${superseded}">a newer idea</a>`;
  return actorLabel(event.actor);
}

/** The order's state as a badge (its class for the colour, its words for people). */
export const statusBadge = (status: Order['status']): Html => html`<span class="status status-${status}">${stateLabel(status)}</span>`;

/** What executed so far: `3 of 10 at USD 231.40`; null before the first execution. */
export function executed(order: Order, money: (amount: number) => string): string | null {
  if (order.average_fill_price === null) return null;
  return `${quantity(order.filled_quantity)} of ${quantity(order.quantity)} at ${money(order.average_fill_price)}`;
}

const BROKER_NAMES: Record<string, string> = { paper: 'the paper broker', alpaca: 'Alpaca' };

/**
 * Where the order was sent, in words: `Sent to Alpaca, order <id>, accepted`, and while it waits for the market to
 * open, when that is. Null for an order never sent.
 */
export function brokerLine(order: Order): Html | null {
  const broker = order.broker;
  if (!broker) return null;
  const sent = [`Sent to ${BROKER_NAMES[broker.id] ?? broker.id}`, broker.order_id && `order ${broker.order_id}`, broker.status]
    .filter(Boolean)
    .join(', ');
  const waiting =
    broker.rests_until && order.status === 'submitted'
      ? html`. Waiting at the broker for the market to open at ${at(broker.rests_until)}`
      : '';
  return html`${sent}${waiting}`;
}

/**
 * Approve, and Reject with an optional reason, for a proposed order; `back` is where the browser returns. Approve opens
 * the order's preview (a GET, like the Developer page's confirmations: the preview changes nothing about the order), where
 * the person confirms what they were shown.
 */
export function decisionForms(visitor: Visitor, order: Order, back: string): Html | '' {
  if (order.status !== 'proposed') return '';
  const returnTo = html`${csrfField(visitor)}<input type="hidden" name="back" value="${back}">`;
  return html`<div class="decide"><form method="get" action="/orders/${order.id}/preview"><input type="hidden" name="back" value="${back}">
<button type="submit">Approve<span class="visually-hidden"> order ${order.id}</span></button></form>
<form method="post" action="/orders/${order.id}/reject" class="reject">${returnTo}
<label for="reason-${order.id}" class="visually-hidden">Reason for rejecting order ${order.id} (optional)</label>
<input id="reason-${order.id}" name="reason" maxlength="500" placeholder="Reason (optional)">
<button type="submit" class="secondary">Reject<span class="visually-hidden"> order ${order.id}</span></button></form></div>`;
}

/** Orders as a table that becomes one card per order on a narrow screen (each cell labelled). */
export function ordersTable(
  visitor: Visitor,
  orders: Order[],
  options: { caption: string; back: string; modes: Map<string, string> },
): Html {
  const money = moneyFormat(orders[0]?.currency ?? 'USD');
  const row = (o: Order) => {
    const done = executed(o, money);
    const price =
      o.status === 'filled' && o.average_fill_price !== null
        ? html` at ${money(o.average_fill_price)}`
        : o.status === 'partially_filled' && done
          ? html`: ${done}`
          : '';
    return html`<tr><td data-label="Order"><a href="/orders/${o.id}"><code>${o.id}</code></a></td><td data-label="Created">${at(o.created_at)}</td>
<td data-label="Symbol">${o.symbol}</td><td data-label="Side">${o.side}</td><td data-label="Quantity">${quantity(o.quantity)}</td>
<td data-label="Notional">${money(o.notional)}</td>
<td data-label="Status">${statusBadge(o.status)}${price}${failedChecks(o.failed_checks)}</td>
<td data-label="Proposed by">${proposer(o, options.modes)}</td><td data-label="Decided by">${decider(o)}</td>
<td data-label="Decision">${decisionForms(visitor, o, options.back) || '—'}</td></tr>`;
  };
  return html`<table class="cards"><caption>${options.caption}</caption>
<thead><tr><th scope="col">Order</th><th scope="col">Created</th><th scope="col">Symbol</th><th scope="col">Side</th>
<th scope="col">Quantity</th><th scope="col">Notional</th><th scope="col">Status</th><th scope="col">Proposed by</th>
<th scope="col">Decided by</th><th scope="col">Decision</th></tr></thead>
<tbody>${orders.map(row)}</tbody></table>`;
}

/** Every transition of the order, who caused it and why. */
export function eventsTable(order: Order): Html {
  const row = (e: OrderEvent) => html`<tr><td data-label="When">${at(e.at)}</td>
<td data-label="Change">${e.from ? html`${stateLabel(e.from)} → ${stateLabel(e.to)}` : html`created as ${stateLabel(e.to)}`}</td>
<td data-label="By">${actorLabel(e.actor)}</td><td data-label="Reason">${e.reason ?? '—'}</td></tr>`;
  return html`<table class="cards"><caption>Events (oldest first)</caption>
<thead><tr><th scope="col">When</th><th scope="col">Change</th><th scope="col">By</th><th scope="col">Reason</th></tr></thead>
<tbody>${order.events.map(row)}</tbody></table>`;
}
