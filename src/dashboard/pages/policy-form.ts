import MarkdownIt from 'markdown-it';
import { PAPER_MARKETS } from '../../services/brokers.js';
import type { Disclosure } from '../../services/disclosures.js';
import { dec } from '../../services/money.js';
import { weightSum, WEIGHT_TOLERANCE, type Policy } from '../../services/policies.js';
import { Html, html } from '../html.js';
import { csrfField } from '../layout.js';
import type { FieldLabels } from '../present.js';
import type { Visitor } from '../visitor.js';

/** Markdown as HTML with raw HTML off (the disclosure is ours, but nothing in it may become markup by accident). */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** Rows of the allocation table without script: the current ones and two blank ones (the script adds and removes rows). */
const BLANK_ROWS = 2;
type Form = Record<string, string | string[] | undefined>;

/** A percentage the API takes as a fraction: the label says so, since the contract's bounds are the fraction's. */
const FRACTION = '(a fraction here: 1 is 100 %)';

/** The form's fields by the contract's pointers (the problems of createPolicy name these). */
export const POLICY_LABELS: FieldLabels = {
  '/limits/max_order_notional': 'Largest order',
  '/limits/max_position_weight': `Largest position weight ${FRACTION}`,
  '/limits/max_daily_notional': 'Daily traded limit',
  '/limits/max_daily_loss': 'Daily loss limit',
  '/limits/allowed_markets': 'Allowed markets',
  '/limits/allowed_symbols': 'Allowed symbols',
  '/limits/allowed_symbols/*': 'Allowed symbol {n}',
  '/limits/blocked_symbols': 'Blocked symbols',
  '/limits/blocked_symbols/*': 'Blocked symbol {n}',
  '/target_allocation': 'Target allocation',
  '/target_allocation/*/symbol': 'Allocation row {n}: symbol',
  '/target_allocation/*/weight': `Allocation row {n}: weight ${FRACTION}`,
  '/rebalance_band': `Rebalance band ${FRACTION}`,
  '/consent/accepted': 'Consent',
  '/consent/signer_name': 'Signature',
};

const text = (form: Form, name: string) => {
  const value = form[name];
  return typeof value === 'string' ? value.trim() : '';
};
const list = (form: Form, name: string) =>
  ([] as (string | undefined)[]).concat(form[name]).map((v) => (typeof v === 'string' ? v.trim() : ''));
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** An amount as typed (thousands separated by commas or not) as a number; other text stays text, for the contract to name. */
const amount = (value: string): number | string =>
  Number.isFinite(Number(value.replace(/,/g, ''))) ? Number(value.replace(/,/g, '')) : value;
/** A percentage as typed as the fraction the API takes, exactly (decimal: 33.3 → 0.333); other text stays text. */
const fraction = (value: string): number | string => (DECIMAL.test(value) ? Number(dec(value).dividedBy(100).toString()) : value);
const asPercent = (weight: number) => dec(weight).times(100).toString();
const symbols = (value: string) =>
  value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((s) => s.toUpperCase());
/** A member only when its field was filled in: a blank field is left out, as an API client would (the contract names it if required). */
const given = <T>(name: string, value: string, parse: (value: string) => T) => (value === '' ? {} : { [name]: parse(value) });

/**
 * The allocation rows the form holds (blank rows dropped), every one of them: how many a policy may have is the
 * contract's rule (the body parser's 100 parameters bound what a form can send).
 */
function targetRows(form: Form): { symbol: string; percent: string }[] {
  const symbolsIn = list(form, 'target_symbol');
  const weights = list(form, 'target_percent');
  return Array.from({ length: Math.max(symbolsIn.length, weights.length) }, (_, i) => ({
    symbol: (symbolsIn[i] ?? '').toUpperCase(),
    percent: weights[i] ?? '',
  })).filter((r) => r.symbol || r.percent);
}

/**
 * The request body the form describes, for createPolicy: typed text turned into the contract's values (amounts,
 * percentages as exact fractions, symbol lists, the tick box as `accepted`), blank fields left out. Parsing only:
 * every rule (bounds, the weights' sum, the signature, the consent) is the contract's and the service's.
 */
export function policyRequest(form: Form, disclosureVersion: string): Record<string, unknown> {
  const allowed = symbols(text(form, 'allowed_symbols'));
  const blocked = symbols(text(form, 'blocked_symbols'));
  return {
    limits: {
      ...given('max_order_notional', text(form, 'max_order_notional'), amount),
      ...given('max_position_weight', text(form, 'max_position_weight'), fraction),
      ...given('max_daily_notional', text(form, 'max_daily_notional'), amount),
      ...given('max_daily_loss', text(form, 'max_daily_loss'), amount),
      allowed_markets: ([] as string[]).concat(form.allowed_markets ?? []),
      ...(allowed.length ? { allowed_symbols: allowed } : {}),
      ...(blocked.length ? { blocked_symbols: blocked } : {}),
    },
    target_allocation: targetRows(form).map((r) => ({ ...given('symbol', r.symbol, String), ...given('weight', r.percent, fraction) })),
    ...given('rebalance_band', text(form, 'rebalance_band'), fraction),
    consent: {
      disclosure_version: disclosureVersion,
      accepted: form.consent_accepted === 'yes',
      ...given('signer_name', text(form, 'signer_name'), String),
    },
  };
}

/** The form's values: what was submitted, else the current policy, else sensible starting limits. The signature is never pre-filled. */
export function formValues(submitted: Form | null, current: Policy | null): Form {
  if (submitted) return submitted;
  const values: Form = {
    max_order_notional: '10000',
    max_position_weight: '50',
    max_daily_notional: '50000',
    max_daily_loss: '5000',
    allowed_markets: ['US'],
    rebalance_band: '5',
  };
  if (!current) return values;
  const l = current.limits;
  return {
    max_order_notional: String(l.max_order_notional),
    max_position_weight: asPercent(l.max_position_weight),
    max_daily_notional: String(l.max_daily_notional),
    max_daily_loss: String(l.max_daily_loss),
    allowed_markets: l.allowed_markets,
    allowed_symbols: (l.allowed_symbols ?? []).join(', '),
    blocked_symbols: (l.blocked_symbols ?? []).join(', '),
    rebalance_band: asPercent(current.rebalance_band),
    target_symbol: current.target_allocation.map((t) => t.symbol),
    target_percent: current.target_allocation.map((t) => asPercent(t.weight)),
  };
}

function input(values: Form, name: string, label: string, help: string, attributes: Html = html``, unit?: string): Html {
  const value = values[name];
  const field = html`<input id="${name}" name="${name}" value="${typeof value === 'string' ? value : ''}" aria-describedby="${name}-help" ${attributes}>`;
  const before = unit && unit !== '%' ? html`<span class="unit">${unit}</span>` : '';
  const after = unit === '%' ? html`<span class="unit">%</span>` : '';
  const row = unit ? html`<div class="unit-row">${before}${field}${after}</div>` : field;
  return html`<label for="${name}">${label}</label>${row}<p id="${name}-help" class="help">${help}</p>`;
}

function allocationRow(symbol: string, percent: string): Html {
  return html`<tr><td data-label="Symbol"><input aria-label="Symbol" name="target_symbol" value="${symbol}" maxlength="12" autocapitalize="characters"></td>
<td data-label="Weight"><div class="unit-row"><input aria-label="Weight in percent" name="target_percent" inputmode="decimal" value="${percent}">
<span class="unit">%</span></div></td>
<td data-label="Row"><button type="button" class="secondary remove-row">Remove<span class="visually-hidden"> this row</span></button></td></tr>`;
}

export function disclosureHtml(disclosure: Disclosure): Html {
  return new Html(markdown.render(disclosure.text));
}

export function policyForm(visitor: Visitor, values: Form, disclosure: Disclosure, currency: string): Html {
  const markets = ([] as string[]).concat(values.allowed_markets ?? []);
  const number = html`inputmode="decimal" required`;
  const rows = targetRows(values);
  const weights = rows.map((r) => fraction(r.percent)).filter((w): w is number => typeof w === 'number');
  const sum = weightSum(weights);
  const market = (m: string) =>
    html`<div class="check"><input type="checkbox" id="market-${m}" name="allowed_markets" value="${m}"${markets.includes(m) ? html` checked` : html``}>
<label for="market-${m}">${m}</label></div>`;
  const tolerance = WEIGHT_TOLERANCE.times(100).toString();
  const band = 'How far a weight may drift from its target before rebalancing proposes orders.';
  return html`<form method="post" action="/policy" class="stack policy-form">${csrfField(visitor)}
<fieldset><legend>Risk limits</legend>
${input(values, 'max_order_notional', 'Largest order', `The most one order may cost, in ${currency}.`, number, currency)}
${input(values, 'max_position_weight', 'Largest position weight', 'The largest share of the portfolio one holding may reach after a fill.', number, '%')}
${input(values, 'max_daily_notional', 'Daily traded limit', `The most that may be traded per UTC day, in ${currency}.`, number, currency)}
${input(values, 'max_daily_loss', 'Daily loss limit', `The kill switch engages by itself when the day’s loss reaches this, in ${currency}.`, number, currency)}
</fieldset>
<fieldset><legend>Allowed markets</legend>
${PAPER_MARKETS.map(market)}
</fieldset>
${input(values, 'allowed_symbols', 'Allowed symbols (optional)', 'Comma-separated; when set, only these may be traded.')}
${input(values, 'blocked_symbols', 'Blocked symbols (optional)', 'Comma-separated; never traded.')}
<fieldset class="allocation"><legend>Target allocation (weights add up to 100 %)</legend>
<table class="cards targets">
<thead><tr><th scope="col">Symbol</th><th scope="col">Weight</th><th scope="col"><span class="visually-hidden">Row</span></th></tr></thead>
<tbody>${rows.map((r) => allocationRow(r.symbol, r.percent))}${Array.from({ length: BLANK_ROWS }, () => allocationRow('', ''))}</tbody></table>
<template id="allocation-row">${allocationRow('', '')}</template>
<p class="running-sum" aria-live="polite">Total:
<output id="allocation-sum" data-sum data-tolerance="${tolerance}">${sum.sum.times(100).toString()}</output> %${sum.isOne ? '' : ' (must be 100 %)'}</p>
<button type="button" class="secondary" id="add-row" hidden>Add a row</button>
</fieldset>
${input(values, 'rebalance_band', 'Rebalance band', band, html`inputmode="decimal"`, '%')}
<section aria-labelledby="disclosure-heading" class="disclosure"><h2 id="disclosure-heading">${disclosure.title} (version ${disclosure.version})</h2>
<div class="disclosure-text" tabindex="0" role="region" aria-label="Disclosure text">${disclosureHtml(disclosure)}</div>
<p class="help">SHA-256 of this text: <code>${disclosure.sha256}</code></p></section>
<div class="check"><input type="checkbox" id="consent_accepted" name="consent_accepted" value="yes" required>
<label for="consent_accepted">I have read disclosure ${disclosure.version} above, agree to it
and to keeping this agreement as an electronic record.</label></div>
<label for="signer_name">Type your full name to sign</label>
<input id="signer_name" name="signer_name" autocomplete="off" required maxlength="200" pattern=".*\\p{L}.*" aria-describedby="signer-help" value="">
<p id="signer-help" class="help">Your name as you sign with it: your signature of this policy version.</p>
<button type="submit">Sign and create the new version</button>
</form>`;
}
