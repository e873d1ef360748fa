import { Router, type Request, type Response } from 'express';
import type { DashboardContext } from '../context.js';
import { html } from '../html.js';
import { csrfField, page, type PageOptions } from '../layout.js';
import { formError, seeOther, sendPage } from '../respond.js';
import { actorFor, visitorOf } from '../visitor.js';
import { requireSession } from './auth.js';

export function safetyRoutes({ services, contract }: DashboardContext): Router {
  const router = Router();

  async function safetyPage(res: Response, status: number, options: Pick<PageOptions, 'error' | 'notice'> = {}) {
    const visitor = visitorOf(res);
    const state = await services.killSwitch.get(actorFor(visitor, 'getKillSwitch'));
    const status_ = state.engaged
      ? html`<p class="engaged"><strong>Engaged</strong>${state.level === 'global' ? ' (global: operators engaged it for every account)' : ''}: no order can be approved.</p>
<dl><dt>Reason</dt><dd>${state.reason ?? '—'}</dd><dt>Since</dt><dd>${state.engaged_at ? html`<time datetime="${state.engaged_at}">${state.engaged_at.replace('T', ' ').slice(0, 19)} UTC</time>` : '—'}</dd><dt>Engaged by</dt><dd>${state.engaged_by ?? '—'}</dd></dl>`
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
    const engage = html`<section aria-labelledby="engage-heading"><h2 id="engage-heading">Engage</h2>
<form method="post" action="/safety/engage" class="stack">${csrfField(visitor)}
<label for="engage-reason">Reason</label><input id="engage-reason" name="reason" required maxlength="500">
<button type="submit" class="danger">Engage kill switch</button></form></section>`;
    sendPage(res, status, page({ ...options, title: 'Safety', visitor, section: '/safety', body: html`<section aria-labelledby="state-heading"><h2 id="state-heading">Kill switch</h2>${status_}</section>${release}${engage}` }));
  }

  router.get('/safety', requireSession, (req, res) => safetyPage(res, 200, { notice: typeof req.query.done === 'string' ? `Kill switch ${req.query.done === 'released' ? 'released' : 'engaged'}.` : null }));
  router.post('/safety/engage', requireSession, async (req: Request, res: Response) => {
    const reason = String((req.body as { reason?: string }).reason ?? '').trim();
    try {
      contract.validate('engageKillSwitch', { body: { reason } });
      await services.killSwitch.engage(actorFor(visitorOf(res), 'engageKillSwitch'), reason);
      seeOther(res, '/safety?done=engaged');
    } catch (error) {
      const failed = formError(error);
      if (failed.status >= 500) throw error;
      await safetyPage(res, failed.status, { error: failed.error });
    }
  });
  router.post('/safety/release', requireSession, async (req: Request, res: Response) => {
    const reason = String((req.body as { reason?: string }).reason ?? '').trim().slice(0, 500) || null;
    await services.killSwitch.release(actorFor(visitorOf(res), 'releaseKillSwitch'), reason);
    seeOther(res, '/safety?done=released');
  });
  return router;
}
