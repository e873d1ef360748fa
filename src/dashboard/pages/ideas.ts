import { Router, type Request, type Response } from 'express';
import type { Idea } from '../../services/ideas/views.js';
import type { DashboardContext } from '../context.js';
import { at, stateLabel } from '../format.js';
import { html, type Html } from '../html.js';
import { csrfField, page, type PageOptions } from '../layout.js';
import { decisionNotice } from './orders.js';
import { ordersTable, proposer } from '../orders-view.js';
import { callsOf } from '../channel.js';
import { decideEach, reasonOf } from '../decisions.js';
import { seeOther, sendPage } from '../respond.js';
import { visitorOf, type Visitor } from '../visitor.js';
import { requireSession } from './auth.js';

const PAGE_SIZE = 10;
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
<p>Each approval runs the kill switch, your policy and the risk gate on its own, in order; one that fails is blocked and the others go on.</p>
<div class="decide"><form method="post" action="/ideas/${idea.id}/approve-all">${csrfField(visitor)}<button type="submit">Approve all</button></form>
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

  /** Approves (or rejects) every order of the idea still proposed, one decision each, as the API would one by one. */
  for (const [batch, decision] of [
    ['approve-all', 'approve'],
    ['reject-all', 'reject'],
  ] as const) {
    router.post(`/ideas/:id/${batch}`, requireSession, async (req: Request<{ id: string }>, res: Response) => {
      const id = req.params.id;
      const calls = callsOf(res);
      const found = await calls.operation('getIdea', { path: { id } }, IDEA_LABELS);
      if (!found.ok) return refused(res, found.status, found.error);
      const proposed = found.value.orders.filter((o) => o.status === 'proposed').map((o) => o.id);
      const done = await decideEach(calls, decision, proposed, reasonOf(req));
      if (!done.ok) return refused(res, done.status, done.error);
      const { tally, firstError } = done.value;
      if (firstError) return ideaPage(req, res, 200, id, firstError, batchNotice(tally));
      const query = Object.entries(tally)
        .map(([k, n]) => `${k}=${n}`)
        .join('&');
      seeOther(res, `/ideas/${id}${query ? `?${query}` : ''}`);
    });
  }
  return router;
}
