import { Router, type Request, type Response } from 'express';
import type { components } from '../../../generated/api.js';
import type { DashboardContext } from '../context.js';
import { at, failedChecks, moneyFormat, quantity, stateLabel } from '../format.js';
import { html, type Html } from '../html.js';
import { page, type PageOptions } from '../layout.js';
import { brokerLine, decider, decisionForms, eventsTable, executed, ordersTable, proposer, statusBadge } from '../orders-view.js';
import { callsOf } from '../channel.js';
import { decide, preview, previewIdOf, reasonOf } from '../decisions.js';
import { must } from '../present.js';
import { previewDetails, previewForms, previewPath, staleNote } from '../preview-view.js';
import { seeOther, sendPage } from '../respond.js';
import { visitorOf } from '../visitor.js';
import { requireSession } from './auth.js';

type OrderStatus = components['schemas']['OrderStatus'];
const STATUSES: OrderStatus[] = ['proposed', 'submitted', 'partially_filled', 'filled', 'blocked', 'rejected', 'cancelled', 'expired'];
const PAGE_SIZE = 20;

/** Where a decision form (or the address of a preview) sends the browser back to: a path of this dashboard, never another site. */
export function backTo(req: Request, fallback: string): string {
  const back = (req.body as { back?: unknown } | undefined)?.back ?? req.query.back;
  return typeof back === 'string' && /^\/(?![/\\])[\w\-/?=&.%]*$/.test(back) ? back : fallback;
}

/** What a decision did, said on the page it returns to (from a fixed list: nothing from the address is echoed). */
const NOTICES: Record<string, string> = {
  filled: 'approved and filled by the paper broker',
  submitted: 'approved and submitted: it rests at the broker until its limit price is reached',
  partially_filled: 'approved and submitted: the broker has filled part of it so far',
  rejected: 'rejected',
};
export function decisionNotice(req: Request): string | null {
  const { done, order } = req.query;
  if (typeof done !== 'string' || !NOTICES[done] || typeof order !== 'string' || !/^[\w-]{1,64}$/.test(order)) return null;
  return `Order ${order} ${NOTICES[done]}.`;
}
const withNotice = (back: string, done: string, order: string) =>
  `${back}${back.includes('?') ? '&' : '?'}done=${done}&order=${encodeURIComponent(order)}`;

/**
 * The account's orders: filters by status, pages, each proposed one with Approve (its preview first, then the person
 * confirms it) and Reject; one page per order with its events.
 */
export function orderRoutes(_context: DashboardContext): Router {
  const router = Router();
  const show = (res: Response, status: number, options: Omit<PageOptions, 'visitor' | 'section'>) =>
    sendPage(res, status, page({ ...options, visitor: visitorOf(res), section: '/orders' }));

  router.get('/orders', requireSession, async (req: Request, res: Response) => {
    const visitor = visitorOf(res);
    const calls = callsOf(res);
    const status = STATUSES.find((s) => s === req.query.status);
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : undefined;
    const listed = await calls.operation('listOrders', {
      query: { ...(status ? { status } : {}), ...(cursor ? { cursor } : {}), limit: PAGE_SIZE },
    });
    if (!listed.ok)
      return show(res, listed.status, {
        title: 'Orders',
        error: listed.error,
        body: html`<p><a href="/orders">Back to the newest orders</a></p>`,
      });
    const list = listed.value;
    const modes = must(await calls.action('ideaModes', { ids: list.data.map((o) => o.idea_id) }));
    const here = `/orders${status ? `?status=${status}` : ''}`;
    const filter = (s: OrderStatus) =>
      html`<li><a href="/orders?status=${s}"${s === status ? html` aria-current="page"` : ''}>${stateLabel(s)}</a></li>`;
    const filters = html`<nav aria-label="Filter by status" class="filters"><ul>
<li><a href="/orders"${status ? '' : html` aria-current="page"`}>All</a></li>${STATUSES.map(filter)}</ul></nav>`;
    const newest = cursor ? html`<a href="${here}">Newest</a>` : '';
    const older = list.next_cursor
      ? html`<a href="/orders?${status ? `status=${status}&` : ''}cursor=${encodeURIComponent(list.next_cursor)}">Older orders</a>`
      : '';
    const pager = html`<nav aria-label="Pages" class="pager">${newest}${older}</nav>`;
    const caption = `${status ? `${status[0]!.toUpperCase()}${stateLabel(status.slice(1))} orders` : 'Orders'} (newest first)`;
    const none = status
      ? `No ${stateLabel(status)} orders.`
      : 'No orders yet. Orders appear here when one of your API clients (or its assistant) generates ideas.';
    const body = list.data.length
      ? html`${filters}${ordersTable(visitor, list.data, { caption, back: here, modes })}${pager}`
      : html`${filters}<p>${none}</p>${pager}`;
    show(res, 200, { title: 'Orders', notice: decisionNotice(req), body });
  });

  /** The order's page (`status` and `options` say how the last decision went), or, when it cannot be read, why not. */
  async function orderPage(res: Response, status: number, id: string, options: Pick<PageOptions, 'error' | 'notice'> = {}) {
    const visitor = visitorOf(res);
    const calls = callsOf(res);
    const found = await calls.operation('getOrder', { path: { id } }, { '/path/id': 'order' });
    if (!found.ok) {
      const error = options.error ?? found.error;
      return show(res, options.error ? status : found.status, {
        title: 'Order',
        error,
        body: html`<p><a href="/orders">All orders</a></p>`,
      });
    }
    const order = found.value;
    const modes = must(await calls.action('ideaModes', { ids: [order.idea_id] }));
    const money = moneyFormat(order.currency);
    const filled = executed(order, money);
    const broker = brokerLine(order);
    const summary: [string, Html | string][] = [
      ['Status', statusBadge(order.status)],
      ['Symbol', `${order.symbol} (${order.market})`],
      ['Side', order.side],
      ['Quantity', quantity(order.quantity)],
      ['Type', order.order_type === 'limit' && order.limit_price !== null ? `limit at ${money(order.limit_price)}` : 'market'],
      ['Notional', money(order.notional)],
      ['Idea', order.idea_id ? html`<a href="/ideas/${order.idea_id}">${order.idea_id}</a>` : '—'],
      ['Proposed by', proposer(order, modes)],
      ['Decided by', decider(order)],
      ['Created', at(order.created_at)],
      [order.status === 'proposed' ? 'Expires' : 'Last change', at(order.status === 'proposed' ? order.expires_at : order.updated_at)],
      ...(filled ? ([['Filled', html`${filled}${order.filled_at ? html`, ${at(order.filled_at)}` : ''}`]] as [string, Html][]) : []),
      ...(broker ? ([['Broker', broker]] as [string, Html][]) : []),
    ];
    const blocked = order.failed_checks?.length
      ? html`<section aria-labelledby="checks-heading"><h2 id="checks-heading">Why it was blocked</h2>${failedChecks(order.failed_checks)}</section>`
      : '';
    const decide =
      order.status === 'proposed'
        ? html`<section aria-labelledby="decide-heading"><h2 id="decide-heading">Your decision</h2>
<p>Approve shows you first what approving would do: every check it runs (the kill switch, your policy, the risk gate)
at a fresh price, the cash and weight after. You then confirm that preview.</p>
${decisionForms(visitor, order, `/orders/${order.id}`)}</section>`
        : '';
    show(res, status, {
      ...options,
      title: `Order ${order.id}`,
      body: html`<dl class="summary">${summary.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>${blocked}${decide}
<section aria-labelledby="events-heading"><h2 id="events-heading">What happened</h2>${eventsTable(order)}</section>
<p><a href="/orders">All orders</a></p>`,
    });
  }

  router.get('/orders/:id', requireSession, (req: Request<{ id: string }>, res: Response) =>
    orderPage(res, 200, req.params.id, { notice: decisionNotice(req) }),
  );

  /**
   * A fresh preview of approving the order (stored, so the approval can be bound to it; nothing about the order
   * changes), with Confirm approval when every check passes; `note` says why an earlier one was refused.
   */
  async function previewPage(res: Response, status: number, id: string, back: string, note: string | null = null) {
    const calls = callsOf(res);
    const made = await preview(calls, id);
    if (!made.ok) return orderPage(res, made.status, id, { error: made.error });
    const order = must(await calls.operation('getOrder', { path: { id } }, { '/path/id': 'order' }));
    show(res, status, {
      title: `Approve order ${id}?`,
      error: note === null ? null : { detail: note },
      body: html`<section aria-labelledby="preview-heading"><h2 id="preview-heading">What approving would do</h2>
${previewDetails(made.value, order)}</section>
<section aria-labelledby="decide-heading"><h2 id="decide-heading">Your decision</h2>${previewForms(visitorOf(res), made.value, back)}</section>`,
    });
  }

  router.get('/orders/:id/preview', requireSession, (req: Request<{ id: string }>, res: Response) =>
    previewPage(res, 200, req.params.id, backTo(req, `/orders/${req.params.id}`)),
  );

  /**
   * Confirms the preview the form carries: approved, the browser goes back with what happened; a stale preview (409
   * `preview-stale`, the order still proposed) is replaced by a fresh one with a note saying what changed. A form
   * without a preview opens one: nothing is approved unseen.
   */
  router.post('/orders/:id/approve', requireSession, async (req: Request<{ id: string }>, res: Response) => {
    const id = req.params.id;
    const back = backTo(req, `/orders/${id}`);
    const previewId = previewIdOf(req);
    if (previewId === undefined) return seeOther(res, previewPath(id, back));
    const done = await decide(callsOf(res), id, { decision: 'approve', previewId });
    if (done.ok) return seeOther(res, withNotice(back, done.value.status, done.value.id));
    if (done.slug === 'preview-stale') return previewPage(res, done.status, id, back, staleNote(done.error.detail));
    return orderPage(res, done.status, id, { error: done.error });
  });

  router.post('/orders/:id/reject', requireSession, async (req: Request<{ id: string }>, res: Response) => {
    const id = req.params.id;
    const done = await decide(callsOf(res), id, { decision: 'reject', reason: reasonOf(req) });
    if (!done.ok) return orderPage(res, done.status, id, { error: done.error });
    seeOther(res, withNotice(backTo(req, `/orders/${id}`), done.value.status, done.value.id));
  });
  return router;
}
