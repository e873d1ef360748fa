import type { Policy, PolicyCreateRequest } from '../../services/policies.js';
import { PAPER_MARKETS } from '../../services/brokers.js';
import type { Disclosure } from '../../services/disclosures.js';
import { html, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import type { Visitor } from '../visitor.js';

const TARGET_ROWS = 6;
type Form = Record<string, string | string[] | undefined>;

const text = (form: Form, name: string) => {
  const value = form[name];
  return typeof value === 'string' ? value.trim() : '';
};
/** A number when the field holds one; otherwise the text itself, so the contract's validation names the field. */
const numeric = (value: string): number | string => (value !== '' && Number.isFinite(Number(value)) ? Number(value) : value);
const symbols = (value: string) => value.split(/[\s,]+/).filter(Boolean).map((s) => s.toUpperCase());

/** The request body the form describes; blank optional fields are left out, as an API client would. */
export function policyRequest(form: Form, disclosureVersion: string): PolicyCreateRequest {
  const allowed = symbols(text(form, 'allowed_symbols'));
  const blocked = symbols(text(form, 'blocked_symbols'));
  const targets = Array.from({ length: TARGET_ROWS }, (_, i) => ({ symbol: text(form, `symbol_${i}`).toUpperCase(), weight: text(form, `weight_${i}`) }))
    .filter((t) => t.symbol || t.weight)
    .map((t) => ({ symbol: t.symbol, weight: numeric(t.weight) }));
  const band = text(form, 'rebalance_band');
  return {
    limits: {
      max_order_notional: numeric(text(form, 'max_order_notional')),
      max_position_weight: numeric(text(form, 'max_position_weight')),
      max_daily_notional: numeric(text(form, 'max_daily_notional')),
      max_daily_loss: numeric(text(form, 'max_daily_loss')),
      allowed_markets: ([] as string[]).concat(form.allowed_markets ?? []),
      ...(allowed.length ? { allowed_symbols: allowed } : {}),
      ...(blocked.length ? { blocked_symbols: blocked } : {}),
    },
    target_allocation: targets,
    ...(band ? { rebalance_band: numeric(band) } : {}),
    ...(form.consent_accepted === 'yes' ? { consent: { disclosure_version: disclosureVersion, accepted: true, signer_name: text(form, 'signer_name') } } : {}),
  } as PolicyCreateRequest;
}

/** The form's values: what was submitted, else the current policy, else sensible starting limits. */
export function formValues(submitted: Form | null, current: Policy | null): Form {
  if (submitted) return submitted;
  const values: Form = { max_order_notional: '10000', max_position_weight: '0.5', max_daily_notional: '50000', max_daily_loss: '5000', allowed_markets: ['US'], rebalance_band: '0.05' };
  if (!current) return values;
  const l = current.limits;
  Object.assign(values, {
    max_order_notional: String(l.max_order_notional),
    max_position_weight: String(l.max_position_weight),
    max_daily_notional: String(l.max_daily_notional),
    max_daily_loss: String(l.max_daily_loss),
    allowed_markets: l.allowed_markets,
    allowed_symbols: (l.allowed_symbols ?? []).join(', '),
    blocked_symbols: (l.blocked_symbols ?? []).join(', '),
    rebalance_band: String(current.rebalance_band),
  });
  current.target_allocation.forEach((t, i) => Object.assign(values, { [`symbol_${i}`]: t.symbol, [`weight_${i}`]: String(t.weight) }));
  return values;
}

function input(values: Form, name: string, label: string, help: string, attributes: Html = html``): Html {
  const value = values[name];
  return html`<label for="${name}">${label}</label><input id="${name}" name="${name}" value="${typeof value === 'string' ? value : ''}" aria-describedby="${name}-help" ${attributes}><p id="${name}-help" class="help">${help}</p>`;
}

export function policyForm(visitor: Visitor, values: Form, disclosure: Disclosure): Html {
  const markets = ([] as string[]).concat(values.allowed_markets ?? []);
  const number = html`inputmode="decimal" required`;
  return html`<form method="post" action="/policy" class="stack">${csrfField(visitor)}
<fieldset><legend>Risk limits (USD)</legend>
${input(values, 'max_order_notional', 'Largest order', 'Maximum notional of one order.', number)}
${input(values, 'max_position_weight', 'Largest position weight', 'A fraction of the portfolio after the fill, 0 to 1 (0.5 = 50 %).', number)}
${input(values, 'max_daily_notional', 'Daily traded limit', 'Maximum notional traded per UTC day.', number)}
${input(values, 'max_daily_loss', 'Daily loss limit', 'The kill switch engages by itself when the day’s loss reaches this.', number)}
</fieldset>
<fieldset><legend>Allowed markets</legend>
${PAPER_MARKETS.map((m) => html`<div class="check"><input type="checkbox" id="market-${m}" name="allowed_markets" value="${m}"${markets.includes(m) ? html` checked` : html``}><label for="market-${m}">${m}</label></div>`)}
</fieldset>
${input(values, 'allowed_symbols', 'Allowed symbols (optional)', 'Comma-separated; when set, only these may be traded.')}
${input(values, 'blocked_symbols', 'Blocked symbols (optional)', 'Comma-separated; never traded.')}
<fieldset><legend>Target allocation (weights sum to 1)</legend>
<table class="targets"><thead><tr><th scope="col">Symbol</th><th scope="col">Weight</th></tr></thead><tbody>
${Array.from({ length: TARGET_ROWS }, (_, i) => html`<tr><td><input aria-label="Symbol ${i + 1}" name="symbol_${i}" value="${(values[`symbol_${i}`] as string) ?? ''}" maxlength="12"></td><td><input aria-label="Weight ${i + 1}" name="weight_${i}" inputmode="decimal" value="${(values[`weight_${i}`] as string) ?? ''}"></td></tr>`)}
</tbody></table></fieldset>
${input(values, 'rebalance_band', 'Rebalance band', 'How far a weight may drift from its target before rebalancing proposes orders.', html`inputmode="decimal"`)}
<section aria-labelledby="disclosure-heading" class="disclosure"><h2 id="disclosure-heading">${disclosure.title} (version ${disclosure.version})</h2>
<div class="disclosure-text" tabindex="0" role="region" aria-label="Disclosure text">${disclosure.text}</div>
<p class="help">SHA-256 of this text: <code>${disclosure.sha256}</code></p></section>
<div class="check"><input type="checkbox" id="consent_accepted" name="consent_accepted" value="yes" required><label for="consent_accepted">I have read disclosure ${disclosure.version} above and agree to it, and to electronic records.</label></div>
<label for="signer_name">Your full name (signature)</label><input id="signer_name" name="signer_name" autocomplete="name" required maxlength="200" value="${(values.signer_name as string) ?? visitor.session?.name ?? ''}">
<button type="submit">Sign and create the new version</button>
</form>`;
}
