import MarkdownIt from 'markdown-it';
import type { Policy, PolicyCreateRequest } from '../../services/policies.js';
import { PAPER_MARKETS } from '../../services/brokers.js';
import type { Disclosure } from '../../services/disclosures.js';
import { InvalidInputError } from '../../services/errors.js';
import { dec } from '../../services/money.js';
import { Html, html } from '../html.js';
import { csrfField } from '../layout.js';
import type { Visitor } from '../visitor.js';

/** Markdown as HTML with raw HTML off (the disclosure is ours, but nothing in it may become markup by accident). */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** Rows of the allocation table without script: the current ones and two blank ones (the script adds and removes rows). */
const BLANK_ROWS = 2;
const MAX_ROWS = 100;
type Form = Record<string, string | string[] | undefined>;

const text = (form: Form, name: string) => {
  const value = form[name];
  return typeof value === 'string' ? value.trim() : '';
};
const list = (form: Form, name: string) =>
  ([] as (string | undefined)[]).concat(form[name]).map((v) => (typeof v === 'string' ? v.trim() : ''));
/** A number when the field holds one; otherwise the text itself, so the contract's validation names the field. */
const numeric = (value: string): number | string =>
  value !== '' && Number.isFinite(Number(value.replace(/,/g, ''))) ? Number(value.replace(/,/g, '')) : value;
const symbols = (value: string) =>
  value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((s) => s.toUpperCase());
const isPercent = (value: string) => /^\d{1,3}(\.\d{1,6})?$/.test(value) && Number(value) <= 100;
/** A percentage typed by a person as the fraction the API takes, exactly (decimal: 33.3 → 0.333). */
const fraction = (value: string) => Number(dec(value).dividedBy(100).toString());
const asPercent = (weight: number) => dec(weight).times(100).toString();

/** The allocation rows the form holds (blank rows dropped). */
function targetRows(form: Form): { symbol: string; percent: string }[] {
  const symbolsIn = list(form, 'target_symbol');
  const weights = list(form, 'target_percent');
  return Array.from({ length: Math.min(MAX_ROWS, Math.max(symbolsIn.length, weights.length)) }, (_, i) => ({
    symbol: (symbolsIn[i] ?? '').toUpperCase(),
    percent: weights[i] ?? '',
  })).filter((r) => r.symbol || r.percent);
}

/** A signature is a full name: at least two words with letters in them. */
export const isFullName = (name: string) => name.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length >= 2;

/**
 * The request body the form describes, after the checks that are the dashboard's own (a person types percentages
 * and signs with a full name); blank optional fields are left out, as an API client would. The contract and the
 * use case check the rest.
 */
export function policyRequest(form: Form, disclosureVersion: string): PolicyCreateRequest {
  const problems: { field: string; detail: string }[] = [];
  const rows = targetRows(form);
  rows.forEach((r, i) => {
    if (!r.symbol) problems.push({ field: `allocation row ${i + 1}`, detail: 'needs a symbol' });
    if (!isPercent(r.percent))
      problems.push({ field: `allocation row ${i + 1}`, detail: 'needs a weight in percent, from 0 to 100 (for example 60)' });
  });
  if (rows.length === 0) problems.push({ field: 'target allocation', detail: 'needs at least one symbol with its weight' });
  else if (problems.length === 0) {
    const sum = rows.reduce((total, r) => total.plus(dec(r.percent)), dec(0));
    if (!sum.equals(100))
      problems.push({ field: 'target allocation', detail: `weights add up to ${sum.toString()} %; they must add up to 100 %` });
  }
  for (const [name, label] of [
    ['max_position_weight', 'largest position weight'],
    ['rebalance_band', 'rebalance band'],
  ] as const) {
    const value = text(form, name);
    if (value !== '' && !isPercent(value)) problems.push({ field: label, detail: 'must be a percentage from 0 to 100' });
  }
  if (form.consent_accepted !== 'yes') problems.push({ field: 'consent', detail: 'tick the box to agree to the disclosure' });
  if (!isFullName(text(form, 'signer_name')))
    problems.push({ field: 'signature', detail: 'type your full name, first and last (at least two words)' });
  if (problems.length > 0) throw new InvalidInputError(problems);

  const allowed = symbols(text(form, 'allowed_symbols'));
  const blocked = symbols(text(form, 'blocked_symbols'));
  const band = text(form, 'rebalance_band');
  const weight = text(form, 'max_position_weight');
  return {
    limits: {
      max_order_notional: numeric(text(form, 'max_order_notional')),
      max_position_weight: weight === '' ? weight : fraction(weight),
      max_daily_notional: numeric(text(form, 'max_daily_notional')),
      max_daily_loss: numeric(text(form, 'max_daily_loss')),
      allowed_markets: ([] as string[]).concat(form.allowed_markets ?? []),
      ...(allowed.length ? { allowed_symbols: allowed } : {}),
      ...(blocked.length ? { blocked_symbols: blocked } : {}),
    },
    target_allocation: rows.map((r) => ({ symbol: r.symbol, weight: fraction(r.percent) })),
    ...(band ? { rebalance_band: fraction(band) } : {}),
    consent: { disclosure_version: disclosureVersion, accepted: true, signer_name: text(form, 'signer_name') },
  } as PolicyCreateRequest;
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
  return html`<label for="${name}">${label}</label>${unit ? html`<div class="unit-row">${unit === '%' ? '' : html`<span class="unit">${unit}</span>`}${field}${unit === '%' ? html`<span class="unit">%</span>` : ''}</div>` : field}<p id="${name}-help" class="help">${help}</p>`;
}

function allocationRow(symbol: string, percent: string): Html {
  return html`<tr><td data-label="Symbol"><input aria-label="Symbol" name="target_symbol" value="${symbol}" maxlength="12" autocapitalize="characters"></td><td data-label="Weight"><div class="unit-row"><input aria-label="Weight in percent" name="target_percent" inputmode="decimal" value="${percent}"><span class="unit">%</span></div></td><td data-label="Row"><button type="button" class="secondary remove-row">Remove<span class="visually-hidden"> this row</span></button></td></tr>`;
}

export function disclosureHtml(disclosure: Disclosure): Html {
  return new Html(markdown.render(disclosure.text));
}

export function policyForm(visitor: Visitor, values: Form, disclosure: Disclosure, currency: string): Html {
  const markets = ([] as string[]).concat(values.allowed_markets ?? []);
  const number = html`inputmode="decimal" required`;
  const rows = targetRows(values);
  const sum = rows.filter((r) => isPercent(r.percent)).reduce((total, r) => total.plus(dec(r.percent)), dec(0));
  return html`<form method="post" action="/policy" class="stack policy-form">${csrfField(visitor)}
<fieldset><legend>Risk limits</legend>
${input(values, 'max_order_notional', 'Largest order', `The most one order may cost, in ${currency}.`, number, currency)}
${input(values, 'max_position_weight', 'Largest position weight', 'The largest share of the portfolio one holding may reach after a fill.', number, '%')}
${input(values, 'max_daily_notional', 'Daily traded limit', `The most that may be traded per UTC day, in ${currency}.`, number, currency)}
${input(values, 'max_daily_loss', 'Daily loss limit', `The kill switch engages by itself when the day’s loss reaches this, in ${currency}.`, number, currency)}
</fieldset>
<fieldset><legend>Allowed markets</legend>
${PAPER_MARKETS.map((m) => html`<div class="check"><input type="checkbox" id="market-${m}" name="allowed_markets" value="${m}"${markets.includes(m) ? html` checked` : html``}><label for="market-${m}">${m}</label></div>`)}
</fieldset>
${input(values, 'allowed_symbols', 'Allowed symbols (optional)', 'Comma-separated; when set, only these may be traded.')}
${input(values, 'blocked_symbols', 'Blocked symbols (optional)', 'Comma-separated; never traded.')}
<fieldset class="allocation"><legend>Target allocation (weights add up to 100 %)</legend>
<table class="cards targets"><thead><tr><th scope="col">Symbol</th><th scope="col">Weight</th><th scope="col"><span class="visually-hidden">Row</span></th></tr></thead>
<tbody>${rows.map((r) => allocationRow(r.symbol, r.percent))}${Array.from({ length: BLANK_ROWS }, () => allocationRow('', ''))}</tbody></table>
<template id="allocation-row">${allocationRow('', '')}</template>
<p class="running-sum" aria-live="polite">Total: <output id="allocation-sum" data-sum>${sum.toString()}</output> %${sum.equals(100) ? '' : ' (must be 100 %)'}</p>
<button type="button" class="secondary" id="add-row" hidden>Add a row</button>
</fieldset>
${input(values, 'rebalance_band', 'Rebalance band', 'How far a weight may drift from its target before rebalancing proposes orders.', html`inputmode="decimal"`, '%')}
<section aria-labelledby="disclosure-heading" class="disclosure"><h2 id="disclosure-heading">${disclosure.title} (version ${disclosure.version})</h2>
<div class="disclosure-text" tabindex="0" role="region" aria-label="Disclosure text">${disclosureHtml(disclosure)}</div>
<p class="help">SHA-256 of this text: <code>${disclosure.sha256}</code></p></section>
<div class="check"><input type="checkbox" id="consent_accepted" name="consent_accepted" value="yes" required><label for="consent_accepted">I have read disclosure ${disclosure.version} above, agree to it and to keeping this agreement as an electronic record.</label></div>
<label for="signer_name">Type your full name to sign</label><input id="signer_name" name="signer_name" autocomplete="off" required maxlength="200" pattern=".*\\S\\s+\\S.*" aria-describedby="signer-help" value="">
<p id="signer-help" class="help">Your first and last name, as your signature of this policy version.</p>
<button type="submit">Sign and create the new version</button>
</form>`;
}
