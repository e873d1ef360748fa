import { Router, type Request, type Response } from 'express';
import type { Idea } from '../../services/ideas/views.js';
import type { DashboardContext } from '../context.js';
import { at, stateLabel } from '../format.js';
import { html, type Html } from '../html.js';
import { csrfField, page, type PageOptions } from '../layout.js';
import { decisionNotice } from './orders.js';
import { ordersTable, proposer } from '../orders-view.js';
import { callsOf } from '../channel.js';
import { decideEach, preview, reasonOf } from '../decisions.js';
import { orderLine, previewDetails, staleNotes } from '../preview-view.js';
import { seeOther, sendPage } from '../respond.js';
import { visitorOf, type Visitor } from '../visitor.js';
import { requireSession } from './auth.js';

const PAGE_SIZE = 10;
/** The previews one page of Approve all shows and confirms (its form stays well within the 100 fields a form may have). */
const PREVIEWS_PER_PAGE = 20;
const IDEA_LABELS = { '/path/id': 'idea' };
const MODES: Record<string, string> = { invest_cash: 'Invest idle cash', rebalance: 'Rebalance', assistant: 'Assistant' };

function counts(idea: Idea): string {
  const by = new Map<string, number>();
  for (const o of idea.orders) by.set(o.status, (by.get(o.status) ?? 0) + 1);
  return [...by].map(([status, n]) => `${n} ${stateLabel(status)}`).join(', ') || 'no orders';
}

function batchForms(visitor: Visitor, idea: Idea): Html | '' {
  const pending = idea.orders.filter((o) => o.status === 'proposed').length;
  if (pending === 0) return '';
  return html`<section aria-labelledby="batch-heading"><h2 id="batch-heading">Decide on all ${pending} proposed ${pending === 1 ? 'order' : 'orders'}</h2>
<p>Approve all shows the preview of each proposed order first: every check its approval runs, at a fresh price. You confirm
the ones that pass together, each approval bound to its own preview.</p>
<div class="decide"><form method="get" action="/ideas/${idea.id}/preview"><button type="submit">Approve all</button></form>
<form method="post" action="/ideas/${idea.id}/reject-all" class="reject">${csrfField(visitor)}
<label for="reject-all-reason" class="visually-hidden">Reason for rejecting them all (optional)</label>
<input id="reject-all-reason" name="reason" maxlength="500" placeholder="Reason (optional)">
<button type="submit" class="secondary">Reject all</button></form></div></section>`;
}

/** What a batch did, from a fixed set of counters (in the address after a redirect). */
function batchNotice(tally: Record<string, unknown>): string | null {
  const parts = (['filled', 'partially_filled', 'submitted', 'rejected', 'blocked', 'refused'] as const)
    .map((k) => [k, Number(tally[k] ?? 0)] as const)
    .filter(([, n]) => Number.isInteger(n) && n > 0 && n <= 1000)
    .map(([k, n]) => `${n} ${stateLabel(k)}`);
  return parts.length ? `Done: ${parts.join(', ')}.` : null;
}

/** The account's ideas: each one's rationale and orders, with Approve all and Reject all. */
export function ideaRoutes(_context: DashboardContext): Router {
  const router = Router();
  const show = (res: Response, status: number, options: Omit<PageOptions, 'visitor' | 'section'>) =>
    sendPage(res, status, page({ ...options, visitor: visitorOf(res), section: '/ideas' }));

  router.get('/ideas', requireSession, async (req: Request, res: Response) => {
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : undefined;
    const listed = await callsOf(res).operation('listIdeas', { query: { ...(cursor ? { cursor } : {}), limit: PAGE_SIZE } });
    if (!listed.ok)
      return show(res, listed.status, {
        title: 'Ideas',
        error: listed.error,
        body: html`<p><a href="/ideas">Back to the newest ideas</a></p>`,
      });
    const list = listed.value;
    const modes = new Map(list.data.map((i) => [i.id, i.mode as string]));
    const items = list.data.map(
      (idea) => html`<li class="idea"><h2><a href="/ideas/${idea.id}">${MODES[idea.mode] ?? idea.mode}, ${at(idea.created_at)}</a></h2>
<p class="help">Proposed by ${idea.orders[0] ? proposer(idea.orders[0], modes) : 'an API client'} · ${counts(idea)}</p><p>${idea.rationale}</p></li>`,
    );
    const newest = cursor ? html`<a href="/ideas">Newest</a>` : '';
    const older = list.next_cursor ? html`<a href="/ideas?cursor=${encodeURIComponent(list.next_cursor)}">Older ideas</a>` : '';
    const pager = html`<nav aria-label="Pages" class="pager">${newest}${older}</nav>`;
    show(res, 200, {
      title: 'Ideas',
      body: list.data.length
        ? html`<p>Each idea is a proposal with its reasons; its orders wait for your decision.
A newer idea of the same kind replaces the orders an older one still proposes.</p>
<ul class="ideas">${items}</ul>${pager}`
        : html`<p>No ideas yet. Your API clients (or their assistants) generate ideas with <code>POST /v1/ideas/generate</code>;
they appear here for you to approve or reject.</p>`,
    });
  });

  const refused = (res: Response, status: number, error: PageOptions['error']) =>
    show(res, status, { title: 'Idea', error, body: html`<p><a href="/ideas">All ideas</a></p>` });

  /** The idea's page (`status`, `error` and `notice` say how the last decision went), or, when it cannot be read, why not. */
  async function ideaPage(
    req: Request,
    res: Response,
    status: number,
    id: string,
    error: PageOptions['error'] = null,
    notice = batchNotice(req.query) ?? decisionNotice(req),
  ) {
    const visitor = visitorOf(res);
    const found = await callsOf(res).operation('getIdea', { path: { id } }, IDEA_LABELS);
    if (!found.ok) return refused(res, found.status, found.error);
    const idea = found.value;
    const modes = new Map([[idea.id, idea.mode]]);
    const orders = idea.orders.length
      ? ordersTable(visitor, idea.orders, { caption: 'Orders of this idea', back: `/ideas/${idea.id}`, modes })
      : html`<p>No orders.</p>`;
    show(res, status, {
      title: `${MODES[idea.mode] ?? idea.mode} idea`,
      error,
      notice,
      body: html`<dl class="summary"><dt>Idea</dt><dd><code>${idea.id}</code></dd><dt>Created</dt><dd>${at(idea.created_at)}</dd>
<dt>Proposed by</dt><dd>${idea.orders[0] ? proposer(idea.orders[0], modes) : '—'}</dd><dt>Orders</dt><dd>${counts(idea)}</dd></dl>
<section aria-labelledby="why-heading"><h2 id="why-heading">Why</h2><p>${idea.rationale}</p></section>
${batchForms(visitor, idea)}
<section aria-labelledby="orders-heading"><h2 id="orders-heading">Its orders</h2>${orders}</section>
<p><a href="/ideas">All ideas</a></p>`,
    });
  }

  router.get('/ideas/:id', requireSession, (req: Request<{ id: string }>, res: Response) => ideaPage(req, res, 200, req.params.id));

  /**
   * The previews of the idea's proposed orders (the first PREVIEWS_PER_PAGE), each with its checks, and one form that
   * confirms those whose checks all pass, each approval bound to its own preview; `options` say how the last batch went.
   */
  async function previewsPage(
    req: Request,
    res: Response,
    status: number,
    id: string,
    options: { error?: PageOptions['error']; notice?: string | null } = {},
  ) {
    const calls = callsOf(res);
    const found = await calls.operation('getIdea', { path: { id } }, IDEA_LABELS);
    if (!found.ok) return refused(res, found.status, found.error);
    const proposed = found.value.orders.filter((o) => o.status === 'proposed');
    if (proposed.length === 0) return ideaPage(req, res, status, id, options.error ?? null, options.notice);
    const shown = proposed.slice(0, PREVIEWS_PER_PAGE);
    const sections: Html[] = [];
    const confirmed: Html[] = [];
    for (const order of shown) {
      const made = await preview(calls, order.id);
      if (made.ok && made.value.decision === 'approve')
        confirmed.push(
          html`<input type="hidden" name="order_id" value="${order.id}"><input type="hidden" name="preview_id" value="${made.value.id}">`,
        );
      sections.push(html`<section aria-labelledby="preview-${order.id}"><h2 id="preview-${order.id}">${orderLine(order)}
<span class="help">(order <a href="/orders/${order.id}"><code>${order.id}</code></a>)</span></h2>
${made.ok ? previewDetails(made.value, order) : html`<p class="error">${made.error.detail}</p>`}</section>`);
    }
    const n = confirmed.length;
    const more =
      proposed.length > shown.length
        ? html` These are the first ${shown.length} of its ${proposed.length} proposed orders: once you have decided on them, Approve all previews the rest.`
        : '';
    const confirm = n
      ? html`<form method="post" action="/ideas/${id}/approve-all">${csrfField(visitorOf(res))}${confirmed}
<button type="submit">Confirm approval of ${n} ${n === 1 ? 'order' : 'orders'}</button></form>`
      : '';
    show(res, status, {
      title: `Approve the orders of idea ${id}?`,
      ...options,
      body: html`<p>${lead(n, shown.length)}${more}</p>${sections}
<section aria-labelledby="confirm-heading"><h2 id="confirm-heading">Your decision</h2>${confirm}
<p><a href="/ideas/${id}/preview">Preview again</a> · <a href="/ideas/${id}">Back to the idea</a> (to reject them all)</p></section>`,
    });
  }

  router.get('/ideas/:id/preview', requireSession, (req: Request<{ id: string }>, res: Response) =>
    previewsPage(req, res, 200, req.params.id),
  );

  /**
   * Approves the orders the confirmation form names, each bound to the preview the person was shown, one by one as the
   * API would; stale previews (the orders still proposed) are replaced by fresh ones with a note saying what changed. A
   * form without previews opens them: nothing is approved unseen.
   */
  router.post('/ideas/:id/approve-all', requireSession, async (req: Request<{ id: string }>, res: Response) => {
    const id = req.params.id;
    const pairs = confirmedPairs(req);
    if (pairs === null) return seeOther(res, `/ideas/${id}/preview`);
    const calls = callsOf(res);
    const found = await calls.operation('getIdea', { path: { id } }, IDEA_LABELS);
    if (!found.ok) return refused(res, found.status, found.error);
    const ours = new Set(found.value.orders.map((o) => o.id));
    if (pairs === 'invalid' || pairs.some(([order]) => !ours.has(order)))
      return refused(res, 400, {
        detail: 'This form does not name the previews of this idea’s orders. Go back to the idea and try again.',
      });
    const done = await decideEach(
      calls,
      pairs.map(([order, previewId]) => [order, { decision: 'approve', previewId }]),
    );
    if (!done.ok) return refused(res, done.status, done.error);
    const { tally, firstError, stale } = done.value;
    if (stale.length) return previewsPage(req, res, 409, id, { error: { detail: staleNotes(stale) }, notice: batchNotice(tally) });
    return decided(req, res, id, tally, firstError);
  });

  /** Rejects every order of the idea still proposed, one decision each, as the API would one by one. */
  router.post('/ideas/:id/reject-all', requireSession, async (req: Request<{ id: string }>, res: Response) => {
    const id = req.params.id;
    const calls = callsOf(res);
    const found = await calls.operation('getIdea', { path: { id } }, IDEA_LABELS);
    if (!found.ok) return refused(res, found.status, found.error);
    const reason = reasonOf(req);
    const proposed = found.value.orders.filter((o) => o.status === 'proposed');
    const done = await decideEach(
      calls,
      proposed.map((o) => [o.id, { decision: 'reject', reason }]),
    );
    if (!done.ok) return refused(res, done.status, done.error);
    return decided(req, res, id, done.value.tally, done.value.firstError);
  });

  /** Back to the idea with what a batch did (its first refusal on the page, else the counts in the address). */
  function decided(req: Request, res: Response, id: string, tally: Record<string, number>, firstError: PageOptions['error']) {
    if (firstError) return ideaPage(req, res, 200, id, firstError, batchNotice(tally));
    const query = Object.entries(tally)
      .map(([k, n]) => `${k}=${n}`)
      .join('&');
    seeOther(res, `/ideas/${id}${query ? `?${query}` : ''}`);
  }
  return router;
}

/** What confirming the previews of a batch does: `n` of the `shown` orders pass every check. */
function lead(n: number, shown: number): string {
  if (n === 0)
    return (
      'None of these orders passes every check, so none can be approved now: each preview says what fails. ' +
      'Reject them, or change what fails and preview again.'
    );
  const others = n < shown ? '; the others stay proposed (reject them, or change what fails and preview again)' : '';
  const approves = n === 1 ? 'it, bound to the preview' : 'them one after another, each bound to the preview';
  return `${n} of ${shown} ${shown === 1 ? 'order passes' : 'orders pass'} every check. Confirming approves ${approves} shown here${others}.`;
}

/** The order and preview pairs a confirmation form carries: none (not a confirmation), or 'invalid' when they do not pair up. */
function confirmedPairs(req: Request): [order: string, preview: string][] | null | 'invalid' {
  const body = (req.body ?? {}) as { order_id?: unknown; preview_id?: unknown };
  if (body.order_id === undefined && body.preview_id === undefined) return null;
  const list = (value: unknown) => ([] as unknown[]).concat(value ?? []);
  const orders = list(body.order_id);
  const previews = list(body.preview_id);
  const strings = [...orders, ...previews].every((v) => typeof v === 'string' && v !== '');
  if (!strings || orders.length !== previews.length || orders.length > PREVIEWS_PER_PAGE) return 'invalid';
  return orders.map((order, i) => [order as string, previews[i] as string]);
}
