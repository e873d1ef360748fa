import type { components } from '../../generated/api.js';
import type { Order } from '../services/orders/views.js';
import { at, moneyFormat, percent, quantity } from './format.js';
import { html, type Html } from './html.js';
import { csrfField } from './layout.js';
import type { Visitor } from './visitor.js';

export type OrderPreview = components['schemas']['OrderPreview'];

/** Each check of a preview in neutral words (whether it passed is said beside it; the message gives the values). */
const CHECK_NAMES: Record<string, string> = {
  kill_switch: 'Kill switch',
  'policy.market': 'Market allowed by your policy',
  'policy.symbol_allowed': 'Symbol on your policy’s allowed list',
  'policy.symbol_blocked': 'Symbol not blocked by your policy',
  'policy.max_order_notional': 'Largest order your policy allows',
  'policy.max_position_weight': 'Your policy’s weight limit',
  'policy.max_daily_notional': 'Your policy’s daily limit',
  'risk.buying_power': 'Cash to pay for it',
  'risk.position': 'Shares to sell',
  'risk.price_collar': 'Limit price near the market price',
  'risk.max_quantity': 'The service’s quantity limit',
  'risk.duplicate_order': 'Not a repeat of an order of the last minute',
  'risk.stale_price': 'Price recent enough to trade on',
};

/** The order in a few words: `Buy 10 VTI (US), market` or `…, limit at USD 330.00`. */
export function orderLine(order: Order): string {
  const money = moneyFormat(order.currency);
  const type = order.order_type === 'limit' && order.limit_price !== null ? `limit at ${money(order.limit_price)}` : 'market';
  return `${order.side === 'buy' ? 'Buy' : 'Sell'} ${quantity(order.quantity)} ${order.symbol} (${order.market}), ${type}`;
}

/** What approving now would do, in words, from the preview's `decision`. */
function verdict(preview: OrderPreview): Html {
  if (preview.decision === 'approve')
    return html`<p class="verdict verdict-approve"><strong>Every check passes.</strong> Confirming approves the order: it is
submitted to your broker at the price of that moment. If by then this preview has expired, your policy has changed, the price
has moved more than your policy allows or a kill switch was engaged, nothing is approved and you see a fresh preview.</p>`;
  if (preview.decision === 'block')
    return html`<p class="verdict verdict-block"><strong>Approving now would block this order</strong>, for good, with the failed
checks below. It stays proposed while you decide: reject it, or change what fails (your policy, your cash) and preview it again.</p>`;
  return html`<p class="verdict verdict-block"><strong>Approving now would be refused</strong>: a kill switch is engaged, or
approving would engage it (see the first check). The order stays proposed.</p>`;
}

/** Every check of the preview, in the order an approval runs them, passed or failed in words. */
function checksTable(preview: OrderPreview): Html {
  const row = (c: OrderPreview['checks'][number]) => html`<tr class="${c.passed ? 'check-passed' : 'check-failed'}">
<td data-label="Check">${CHECK_NAMES[c.check] ?? c.check}</td>
<td data-label="Result">${c.passed ? 'Passed' : html`<strong>Failed</strong>`}</td><td data-label="Details">${c.message}</td></tr>`;
  return html`<table class="cards preview-checks"><caption>Checks (in the order an approval runs them)</caption>
<thead><tr><th scope="col">Check</th><th scope="col">Result</th><th scope="col">Details</th></tr></thead>
<tbody>${preview.checks.map(row)}</tbody></table>`;
}

/** The preview as a person reads it: what approving would do, the numbers it used, and each check. */
export function previewDetails(preview: OrderPreview, order: Order): Html {
  const money = moneyFormat(order.currency);
  const target =
    preview.target_weight === null ? 'no target: you have no policy' : `your policy’s target is ${percent(preview.target_weight)}`;
  const numbers: [string, Html | string][] = [
    ['Order', orderLine(order)],
    ['Price', html`${money(preview.price)}, as of ${at(preview.price_as_of)}`],
    ['Notional', html`${money(preview.notional)} <span class="help">(the most it can ${order.side === 'buy' ? 'cost' : 'bring'})</span>`],
    ['Cash now', money(preview.cash)],
    ['Cash after', money(preview.cash_after)],
    [`Weight of ${order.symbol} after`, `${percent(preview.weight_after)} (${target})`],
    ['Policy', preview.policy_version === null ? 'none' : `version ${preview.policy_version}`],
    ['Preview', html`made ${at(preview.created_at)}, valid until ${at(preview.expires_at)}`],
  ];
  return html`${verdict(preview)}<dl class="summary">${numbers.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>${checksTable(preview)}`;
}

/**
 * What the person can do with the preview of one order: confirm the approval bound to it (only when every check
 * passes: the dashboard offers no approval it knows would be blocked or refused), reject it, or preview it again.
 */
export function previewForms(visitor: Visitor, preview: OrderPreview, back: string): Html {
  const id = preview.order_id;
  const returnTo = html`${csrfField(visitor)}<input type="hidden" name="back" value="${back}">`;
  const confirm =
    preview.decision === 'approve'
      ? html`<form method="post" action="/orders/${id}/approve">${returnTo}<input type="hidden" name="preview_id" value="${preview.id}">
<button type="submit">Confirm approval<span class="visually-hidden"> of order ${id}</span></button></form>`
      : '';
  return html`<div class="decide">${confirm}<form method="post" action="/orders/${id}/reject" class="reject">${returnTo}
<label for="reason-${id}" class="visually-hidden">Reason for rejecting order ${id} (optional)</label>
<input id="reason-${id}" name="reason" maxlength="500" placeholder="Reason (optional)">
<button type="submit" class="secondary">Reject<span class="visually-hidden"> order ${id}</span></button></form></div>
<p><a href="${previewPath(id, back)}">Preview again</a> · <a href="/orders/${id}">Back to the order</a></p>`;
}

/** Where Approve leads: the preview of the order, returning to `back` once decided. */
export const previewPath = (orderId: string, back: string) => `/orders/${orderId}/preview?back=${encodeURIComponent(back)}`;

const STALE = /^The preview \S+ is stale: ([\s\S]+)\. The order is still proposed; preview it again\.$/;
/** What changed since the preview, from a `preview-stale` problem's detail (which names each reason with its values). */
const whatChanged = (detail: string) => STALE.exec(detail)?.[1] ?? detail.replace(/\.$/, '');

/** The note above a fresh preview when the one the person confirmed was stale (`preview-stale`): what changed, and what to do. */
export function staleNote(detail: string): string {
  return (
    `Nothing was approved and the order is still proposed, because the preview you confirmed is out of date: ${whatChanged(detail)}. ` +
    'Below is a fresh preview: check it, and confirm again if you still want to approve.'
  );
}

/** The same note for several orders of a batch, each with what changed. */
export function staleNotes(stale: { orderId: string; detail: string }[]): string {
  const one = stale.length === 1;
  const each = stale.map((s) => `for order ${s.orderId}, ${whatChanged(s.detail)}`).join('; ');
  return (
    `${one ? 'One order was' : `${stale.length} orders were`} not approved and ${one ? 'is' : 'are'} still proposed, because the ` +
    `${one ? 'preview' : 'previews'} you confirmed ${one ? 'is' : 'are'} out of date: ${each}. Below are fresh previews: ` +
    'check them, and confirm again if you still want to approve.'
  );
}
