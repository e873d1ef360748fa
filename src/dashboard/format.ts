import type { components } from '../../generated/api.js';
import { html, type Html } from './html.js';

type EventActor = components['schemas']['EventActor'];

/** Amounts in the account's currency with its symbol and thousands separators (Intl; en-US layout). */
export function moneyFormat(currency: string, options: { whole?: boolean } = {}): (amount: number) => string {
  const digits = options.whole ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {};
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency, currencyDisplay: 'code', ...digits });
  return (amount) => format.format(amount).replace(/\u00a0/g, ' ');
}

const quantityFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });
export const quantity = (value: number) => quantityFormat.format(value);

const percentFormat = new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
/** A weight (0.6) as a person reads it (60.0%). */
export const percent = (weight: number) => percentFormat.format(weight);

/** An order's state as a person reads it (`partially_filled` → partially filled). */
export const stateLabel = (state: string) => state.replace(/_/g, ' ');

/** A time as `2026-11-26 14:05 UTC`, machine-readable in `datetime`. */
export function at(iso: string | null | undefined): Html | string {
  if (!iso) return '—';
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** Who did something, by name: a person, an API client (said so), or the service. */
export function actorLabel(actor: EventActor | null | undefined): string {
  if (!actor) return '—';
  if (actor.kind === 'person') return actor.name;
  if (actor.kind === 'client') return `${actor.name} (API client)`;
  return 'the service';
}

/** Each pre-trade check's name in words (the message says the values). */
const CHECKS: Record<string, string> = {
  'policy.market': 'Market not allowed by your policy',
  'policy.symbol_allowed': 'Symbol not on your policy’s allowed list',
  'policy.symbol_blocked': 'Symbol blocked by your policy',
  'policy.max_order_notional': 'Order larger than your policy allows',
  'policy.max_position_weight': 'Position would exceed your policy’s weight limit',
  'policy.max_daily_notional': 'Day’s trading would exceed your policy’s daily limit',
  'risk.buying_power': 'Not enough cash',
  'risk.position': 'Not enough shares to sell',
  'risk.price_collar': 'Limit price too far from the market price',
  'risk.max_quantity': 'Quantity over the service’s limit',
  'risk.duplicate_order': 'Same order placed within the last minute',
  'risk.stale_price': 'Price too old to trade on',
};
export const checkName = (check: string) => CHECKS[check] ?? check;

export function failedChecks(checks: { check: string; message: string }[] | null | undefined): Html | '' {
  if (!checks?.length) return '';
  return html`<ul class="checks">${checks.map((c) => html`<li><strong>${checkName(c.check)}</strong>: ${c.message}</li>`)}</ul>`;
}
