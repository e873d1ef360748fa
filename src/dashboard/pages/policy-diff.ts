import type { Policy } from '../../services/policies.js';
import { at, moneyFormat, percent } from '../format.js';
import { html, type Html } from '../html.js';

/** The policy's terms as a person reads them, one line each (the same lines a diff compares). */
export function terms(policy: Policy, currency: string): [string, string][] {
  const money = moneyFormat(currency);
  const l = policy.limits;
  return [
    ['Largest order', money(l.max_order_notional)],
    ['Largest position weight', percent(l.max_position_weight)],
    ['Daily traded limit', money(l.max_daily_notional)],
    ['Daily loss limit', money(l.max_daily_loss)],
    ['Markets', l.allowed_markets.join(', ')],
    ['Allowed symbols', l.allowed_symbols?.length ? l.allowed_symbols.join(', ') : 'any'],
    ['Blocked symbols', l.blocked_symbols?.length ? l.blocked_symbols.join(', ') : 'none'],
    ['Rebalance band', `± ${percent(policy.rebalance_band)}`],
    ...policy.target_allocation.map((t) => [`Target ${t.symbol}`, percent(t.weight)] as [string, string]),
  ];
}

export function summary(policy: Policy, currency: string): Html {
  return html`<dl class="summary"><dt>Version</dt><dd>${policy.version}</dd>
<dt>Signed</dt><dd>by ${policy.consent.signer_name}, ${at(policy.consent.accepted_at)} (disclosure ${policy.consent.disclosure_version})</dd>
${terms(policy, currency).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

/** What changed from `before` to `after`, term by term: changed, added and removed lines; nothing when equal. */
export function diff(before: Policy, after: Policy, currency: string): Html {
  const old = new Map(terms(before, currency));
  const now = new Map(terms(after, currency));
  const rows: Html[] = [];
  for (const [term, value] of now) {
    const was = old.get(term);
    if (was === undefined)
      rows.push(
        html`<tr><td data-label="Term">${term}</td><td data-label="Before">—</td><td data-label="After"><ins>${value}</ins></td></tr>`,
      );
    else if (was !== value)
      rows.push(
        html`<tr><td data-label="Term">${term}</td><td data-label="Before"><del>${was}</del></td><td data-label="After"><ins>${value}</ins></td></tr>`,
      );
  }
  for (const [term, was] of old)
    if (!now.has(term))
      rows.push(
        html`<tr><td data-label="Term">${term}</td><td data-label="Before"><del>${was}</del></td><td data-label="After">—</td></tr>`,
      );
  if (rows.length === 0) return html`<p>The terms are the same as version ${before.version}'s; only the signature is new.</p>`;
  return html`<table class="cards"><caption>Changed from version ${before.version}</caption>
<thead><tr><th scope="col">Term</th><th scope="col">Before</th><th scope="col">After</th></tr></thead><tbody>${rows}</tbody></table>`;
}
