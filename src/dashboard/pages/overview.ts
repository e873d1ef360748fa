import { Router } from 'express';
import type { DashboardContext } from '../context.js';
import { allocationChart, valueChart, type AllocationRow } from '../charts.js';
import { checklist } from '../checklist.js';
import { at, moneyFormat, percent, quantity } from '../format.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { ordersTable } from '../orders-view.js';
import { callsOf } from '../channel.js';
import { must } from '../present.js';
import { sendPage, seeOther } from '../respond.js';
import { visitorOf } from '../visitor.js';
import { requireSession } from './auth.js';

const RECENT_ORDERS = 5;
const TODAY_ORDERS = 100;

/** Where the account stands at a glance: value, cash, allocation against target, value over time, today, what waits for a decision. */
export function overviewRoutes(_context: DashboardContext): Router {
  const router = Router();
  router.get('/overview', requireSession, async (_req, res) => {
    const visitor = visitorOf(res);
    const calls = callsOf(res);
    const portfolio = must(await calls.operation('getPortfolio', { query: { market: 'US' } }));
    // No policy yet (or one stored before limits were bounded): the page shows no target.
    const current = await calls.operation('getCurrentPolicy');
    const policy = current.ok ? current.value : null;
    const history = must(await calls.action('valueHistory'));
    const pending = must(await calls.operation('listOrders', { query: { status: 'proposed', limit: RECENT_ORDERS } }));
    const recent = must(await calls.operation('listOrders', { query: { limit: TODAY_ORDERS } }));
    const modes = must(await calls.action('ideaModes', { ids: [...pending.data, ...recent.data].map((o) => o.idea_id) }));
    const money = moneyFormat(portfolio.currency);

    const today = portfolio.as_of.slice(0, 10);
    const todays = recent.data.filter((o) => o.updated_at.slice(0, 10) === today);
    const byStatus = new Map<string, number>();
    for (const o of todays) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
    const traded = todays
      .filter((o) => o.status === 'filled' && o.filled_at?.slice(0, 10) === today)
      .reduce((sum, o) => sum + o.notional, 0);

    const weights = new Map(portfolio.holdings.map((h) => [h.symbol, h.weight]));
    const rows: AllocationRow[] = [...new Set([...(policy?.target_allocation.map((t) => t.symbol) ?? []), ...weights.keys()])].map(
      (symbol) => ({
        symbol,
        target: policy?.target_allocation.find((t) => t.symbol === symbol)?.weight ?? 0,
        current: weights.get(symbol) ?? 0,
      }),
    );
    const cashWeight = portfolio.total_value > 0 ? portfolio.cash / portfolio.total_value : 1;

    const awaiting = `${pending.data.length}${pending.next_cursor ? '+' : ''} ${pending.data.length === 1 ? 'order' : 'orders'}`;
    const tiles = html`<dl class="tiles"><div><dt>Total value</dt><dd>${money(portfolio.total_value)}</dd></div>
<div><dt>Cash</dt><dd>${money(portfolio.cash)}</dd></div><div><dt>Invested</dt><dd>${money(portfolio.market_value)}</dd></div>
<div><dt>Awaiting your decision</dt><dd><a href="/orders?status=proposed">${awaiting}</a></dd></div></dl>`;
    const allocation = rows.length
      ? html`${allocationChart(rows)}<p>Cash is ${(cashWeight * 100).toFixed(1)}% of the portfolio.</p>`
      : html`<p>No target yet: <a href="/policy">sign a policy</a> to set one.</p>`;
    const holding = (h: (typeof portfolio.holdings)[number]) => html`<tr><td data-label="Symbol">${h.symbol}</td>
<td data-label="Quantity">${quantity(h.quantity)}</td><td data-label="Average cost">${money(h.average_cost)}</td>
<td data-label="Last price">${money(h.last_price)}</td><td data-label="Market value">${money(h.market_value)}</td>
<td data-label="Unrealised P&amp;L">${money(h.unrealized_pnl)}</td><td data-label="Weight">${percent(h.weight)}</td></tr>`;
    const holdings = portfolio.holdings.length
      ? html`<table class="cards"><caption>Holdings (${portfolio.market})</caption>
<thead><tr><th scope="col">Symbol</th><th scope="col">Quantity</th><th scope="col">Average cost</th><th scope="col">Last price</th>
<th scope="col">Market value</th><th scope="col">Unrealised P&amp;L</th><th scope="col">Weight</th></tr></thead>
<tbody>${portfolio.holdings.map(holding)}</tbody></table>`
      : html`<p>No holdings yet: everything is in cash.</p>`;
    const activity = todays.length
      ? html`<p>${[...byStatus].map(([s, n]) => `${n} ${s}`).join(', ')}; ${money(traded)} traded.</p>`
      : html`<p>No order activity today.</p>`;
    const decisions = pending.data.length
      ? html`${ordersTable(visitor, pending.data, { caption: 'Proposed orders (newest first)', back: '/overview', modes })}
<p><a href="/orders?status=proposed">All proposed orders</a> · <a href="/ideas">Ideas and their reasons</a></p>`
      : html`<p>Nothing waits for you. When an API client generates ideas, their orders appear here for you to approve or reject.</p>`;

    const body = html`${await checklist(calls)}
<section aria-labelledby="glance-heading"><h2 id="glance-heading">At a glance</h2>
${tiles}
<p class="help">Prices as of ${at(portfolio.as_of)}.</p></section>
<section aria-labelledby="alloc-heading"><h2 id="alloc-heading">Allocation</h2>${allocation}</section>
<section aria-labelledby="holdings-heading"><h2 id="holdings-heading">Holdings</h2>${holdings}</section>
<section aria-labelledby="value-heading"><h2 id="value-heading">Value over time</h2>
${valueChart(history, money, moneyFormat(portfolio.currency, { whole: true }))}</section>
<section aria-labelledby="today-heading"><h2 id="today-heading">Today</h2>${activity}</section>
<section aria-labelledby="pending-heading"><h2 id="pending-heading">Awaiting your decision</h2>${decisions}</section>`;
    sendPage(res, 200, page({ title: 'Overview', visitor, section: '/overview', body }));
  });

  /** The checklist's docs link: marks the step, then on to the API's documentation. */
  router.get('/go/docs', requireSession, async (_req, res) => {
    must(await callsOf(res).action('markChecklist', { item: 'docs' }));
    seeOther(res, visitorOf(res).docsUrl);
  });
  return router;
}
