import { Router, type Request, type Response } from 'express';
import type { DashboardContext } from '../context.js';
import { html, type Html } from '../html.js';
import { page, type PageOptions } from '../layout.js';
import { formError, seeOther, sendPage } from '../respond.js';
import { actorFor, visitorOf } from '../visitor.js';
import type { Policy } from '../../services/policies.js';
import { NotFoundError } from '../../services/errors.js';
import { PolicyInvalidError } from '../../services/policy-limits.js';
import { requireSession } from './auth.js';
import { formValues, policyForm, policyRequest } from './policy-form.js';

const HISTORY = 20;

function summary(policy: Policy): Html {
  const l = policy.limits;
  return html`<dl class="summary"><dt>Version</dt><dd>${policy.version}</dd><dt>Signed</dt><dd>${policy.consent.signer_name}, <time datetime="${policy.consent.accepted_at}">${policy.consent.accepted_at.slice(0, 16).replace('T', ' ')} UTC</time> (disclosure ${policy.consent.disclosure_version}, by ${policy.consent.client_id})</dd>
<dt>Limits</dt><dd>order ≤ ${l.max_order_notional}, position ≤ ${l.max_position_weight * 100} %, daily traded ≤ ${l.max_daily_notional}, daily loss ≤ ${l.max_daily_loss}; markets ${l.allowed_markets.join(', ')}</dd>
<dt>Target allocation</dt><dd>${policy.target_allocation.map((t) => `${t.symbol} ${(t.weight * 100).toFixed(1)} %`).join(', ')}</dd></dl>`;
}

/** The investment policy: the version in force, its history, and signing a new version with the disclosure in full. */
export function policyRoutes({ services, contract }: DashboardContext): Router {
  const router = Router();

  async function policyPage(res: Response, status: number, options: Pick<PageOptions, 'error' | 'notice'>, submitted: Record<string, string | string[]> | null) {
    const visitor = visitorOf(res);
    const disclosure = services.policies.currentDisclosure(actorFor(visitor, 'getCurrentDisclosure'));
    const found = await services.policies.current(actorFor(visitor, 'getCurrentPolicy')).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      // A version stored before limits were bounded: its problem says so, and the form below signs a valid one.
      if (error instanceof PolicyInvalidError) return error;
      throw error;
    });
    const current = found instanceof PolicyInvalidError ? null : found;
    const history = await services.policies.list(actorFor(visitor, 'listPolicies'), { limit: HISTORY });
    const body = html`<section aria-labelledby="current-heading"><h2 id="current-heading">Current policy</h2>${current ? summary(current) : found instanceof PolicyInvalidError ? html`<p>${found.detail}</p>` : html`<p>No policy yet: assistants cannot generate ideas until you sign one.</p>`}</section>
${history.data.length > 1 ? html`<section aria-labelledby="history-heading"><h2 id="history-heading">History</h2><table><caption>Policy versions (newest first)</caption><thead><tr><th scope="col">Version</th><th scope="col">Created</th><th scope="col">Signed by</th><th scope="col">Through</th></tr></thead>
<tbody>${history.data.map((p) => html`<tr><td>${p.version}</td><td><time datetime="${p.created_at}">${p.created_at.slice(0, 16).replace('T', ' ')} UTC</time></td><td>${p.consent.signer_name}</td><td>${p.created_by_client_id}</td></tr>`)}</tbody></table></section>` : ''}
<section aria-labelledby="new-heading"><h2 id="new-heading">Sign a new version</h2>${policyForm(visitor, formValues(submitted, current), disclosure)}</section>`;
    sendPage(res, status, page({ ...options, title: 'Policy', visitor, section: '/policy', body }));
  }

  router.get('/policy', requireSession, (req, res) => policyPage(res, 200, { notice: req.query.created ? `Version ${String(req.query.created)} is now in force.` : null }, null));
  router.post('/policy', requireSession, async (req: Request, res: Response) => {
    const visitor = visitorOf(res);
    const form = req.body as Record<string, string | string[]>;
    try {
      const body = policyRequest(form, services.policies.currentDisclosure(actorFor(visitor, 'getCurrentDisclosure')).version);
      contract.validate('createPolicy', { body });
      const policy = await services.policies.create(actorFor(visitor, 'createPolicy'), body);
      seeOther(res, `/policy?created=${policy.version}`);
    } catch (error) {
      const failed = formError(error);
      if (failed.status >= 500) throw error;
      await policyPage(res, failed.status, { error: failed.error }, form);
    }
  });
  return router;
}
