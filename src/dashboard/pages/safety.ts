import { Router, type Request, type Response } from 'express';
import type { DashboardContext } from '../context.js';
import { at } from '../format.js';
import { html } from '../html.js';
import { csrfField, page, type PageOptions } from '../layout.js';
import { callsOf } from '../channel.js';
import { must } from '../present.js';
import { seeOther, sendPage } from '../respond.js';
import { visitorOf } from '../visitor.js';
import { requireSession } from './auth.js';

const HISTORY = 50;

export function safetyRoutes(_context: DashboardContext): Router {
  const router = Router();

  async function safetyPage(res: Response, status: number, options: Pick<PageOptions, 'error' | 'notice'> = {}) {
    const visitor = visitorOf(res);
    const calls = callsOf(res);
    const state = must(await calls.action('namedKillSwitch'));
    const history = must(await calls.action('killSwitchHistory', { limit: HISTORY }));
    const everyAccount = state.level === 'global' ? ' (global: operators engaged it for every account)' : '';
    const status_ = state.engaged
      ? html`<p class="engaged"><strong>Engaged</strong>${everyAccount}: no order can be approved.</p>
<dl class="summary"><dt>Reason</dt><dd>${state.reason ?? '—'}</dd><dt>Since</dt><dd>${at(state.engaged_at)}</dd>
<dt>Engaged by</dt><dd>${state.engaged_by_name ?? '—'}</dd></dl>`
      : html`<p class="released"><strong>Released</strong>: orders can be approved (subject to your policy and the risk gate).</p>`;
    const release =
      state.engaged && state.level === 'account'
        ? html`<section aria-labelledby="release-heading"><h2 id="release-heading">Release</h2>
<p>Only you can release it, here (API clients can engage it but never release it).</p>
<form method="post" action="/safety/release" class="stack">${csrfField(visitor)}
<label for="release-reason">Reason (optional)</label><input id="release-reason" name="reason" maxlength="500">
<button type="submit">Release kill switch</button></form></section>`
        : state.engaged
          ? html`<p>The global kill switch is operated by the service's operators; it cannot be released here.</p>`
          : '';
    // While it is engaged there is nothing to engage: the form would only confuse.
    const engage = state.engaged
      ? ''
      : html`<section aria-labelledby="engage-heading"><h2 id="engage-heading">Engage</h2>
<p>Stops every approval on your account, by you or any API client, until you release it here.</p>
<form method="post" action="/safety/engage" class="stack">${csrfField(visitor)}
<label for="engage-reason">Reason</label><input id="engage-reason" name="reason" required maxlength="500">
<button type="submit" class="danger">Engage kill switch</button></form></section>`;
    const entry = (e: (typeof history)[number]) => html`<tr><td data-label="When">${at(e.at)}</td>
<td data-label="What">${e.level === 'global' ? 'global switch ' : ''}${e.action}</td><td data-label="By">${e.by}</td>
<td data-label="Reason">${e.reason ?? '—'}</td></tr>`;
    const log = history.length
      ? html`<table class="cards"><caption>Engagements and releases (newest first)</caption>
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">By</th><th scope="col">Reason</th></tr></thead>
<tbody>${history.map(entry)}</tbody></table>`
      : html`<p>The kill switch has never been engaged on this account.</p>`;
    sendPage(
      res,
      status,
      page({
        ...options,
        title: 'Safety',
        visitor,
        section: '/safety',
        body: html`<section aria-labelledby="state-heading"><h2 id="state-heading">Kill switch</h2>${status_}</section>${release}${engage}
<section aria-labelledby="history-heading"><h2 id="history-heading">History</h2>${log}</section>`,
      }),
    );
  }

  router.get('/safety', requireSession, (req, res) =>
    safetyPage(res, 200, {
      notice: typeof req.query.done === 'string' ? `Kill switch ${req.query.done === 'released' ? 'released' : 'engaged'}.` : null,
    }),
  );
  router.post('/safety/engage', requireSession, async (req: Request, res: Response) => {
    const reason = String((req.body as { reason?: string }).reason ?? '').trim();
    const engaged = await callsOf(res).operation('engageKillSwitch', { body: { reason } }, { '/reason': 'reason' });
    if (!engaged.ok) return safetyPage(res, engaged.status, { error: engaged.error });
    seeOther(res, '/safety?done=engaged');
  });
  router.post('/safety/release', requireSession, async (req: Request, res: Response) => {
    const reason =
      String((req.body as { reason?: string }).reason ?? '')
        .trim()
        .slice(0, 500) || null;
    must(await callsOf(res).action('releaseKillSwitch', { reason }));
    seeOther(res, '/safety?done=released');
  });
  return router;
}
