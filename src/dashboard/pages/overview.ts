import { Router } from 'express';
import type { DashboardContext } from '../context.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { sendPage } from '../respond.js';
import { actorFor, visitorOf } from '../visitor.js';
import { requireSession } from './auth.js';

const RECENT_ORDERS = 20;
const money = (amount: number, currency: string) => `${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;

/** What the account's assistants did: the paper portfolio and the recent orders with their states. */
export function overviewRoutes({ services }: DashboardContext): Router {
  const router = Router();
  router.get('/overview', requireSession, async (_req, res) => {
    const visitor = visitorOf(res);
    const portfolio = await services.portfolio.get(actorFor(visitor, 'getPortfolio'), 'US');
    const orders = await services.orders.list(actorFor(visitor, 'listOrders'), { limit: RECENT_ORDERS });
    const cur = portfolio.currency;
    const holdings = portfolio.holdings.length
      ? html`<table><caption>Holdings (${portfolio.market})</caption><thead><tr><th scope="col">Symbol</th><th scope="col">Quantity</th><th scope="col">Average cost</th><th scope="col">Last price</th><th scope="col">Market value</th><th scope="col">Unrealised P&amp;L</th><th scope="col">Weight</th></tr></thead>
<tbody>${portfolio.holdings.map((h) => html`<tr><td>${h.symbol}</td><td>${h.quantity}</td><td>${money(h.average_cost, cur)}</td><td>${money(h.last_price, cur)}</td><td>${money(h.market_value, cur)}</td><td>${money(h.unrealized_pnl, cur)}</td><td>${(h.weight * 100).toFixed(1)} %</td></tr>`)}</tbody></table>`
      : html`<p>No holdings yet.</p>`;
    const recent = orders.data.length
      ? html`<table><caption>Recent orders (newest first)</caption><thead><tr><th scope="col">Created</th><th scope="col">Symbol</th><th scope="col">Side</th><th scope="col">Quantity</th><th scope="col">Status</th><th scope="col">Fill price</th><th scope="col">Last change by</th></tr></thead>
<tbody>${orders.data.map((o) => html`<tr><td><time datetime="${o.created_at}">${o.created_at.slice(0, 16).replace('T', ' ')} UTC</time></td><td>${o.symbol}</td><td>${o.side}</td><td>${o.quantity}</td><td>${o.status}</td><td>${o.fill_price === null ? '—' : money(o.fill_price, cur)}</td><td>${o.events.at(-1)?.client_id ?? '—'}</td></tr>`)}</tbody></table>`
      : html`<p>No orders yet. Orders appear here when an assistant generates ideas.</p>`;
    sendPage(
      res,
      200,
      page({
        title: 'Overview',
        visitor,
        section: '/overview',
        body: html`<section aria-labelledby="portfolio-heading"><h2 id="portfolio-heading">Paper portfolio</h2>
<dl class="summary"><dt>Cash</dt><dd>${money(portfolio.cash, cur)}</dd><dt>Market value</dt><dd>${money(portfolio.market_value, cur)}</dd><dt>Total value</dt><dd>${money(portfolio.total_value, cur)}</dd><dt>As of</dt><dd><time datetime="${portfolio.as_of}">${portfolio.as_of.slice(0, 19).replace('T', ' ')} UTC</time></dd></dl>
${holdings}</section>
<section aria-labelledby="orders-heading"><h2 id="orders-heading">Orders</h2>${recent}</section>`,
      }),
    );
  });
  return router;
}
