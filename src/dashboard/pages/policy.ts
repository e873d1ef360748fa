import { Router, type Request, type Response } from 'express';
import type { DashboardContext } from '../context.js';
import { at } from '../format.js';
import { html } from '../html.js';
import { page, type PageOptions } from '../layout.js';
import { formError, seeOther, sendPage } from '../respond.js';
import { actorFor, visitorOf } from '../visitor.js';
import { PAPER_CURRENCY } from '../../services/ledger.js';
import { NotFoundError } from '../../services/errors.js';
import { PolicyInvalidError } from '../../services/policy-limits.js';
import { requireSession } from './auth.js';
import { diff, summary } from './policy-diff.js';
import { formValues, policyForm, policyRequest } from './policy-form.js';

const HISTORY = 20;
const currency = PAPER_CURRENCY;

/** The investment policy: the version in force, its history with each version and what changed, and signing a new version. */
export function policyRoutes({ services, contract }: DashboardContext): Router {
  const router = Router();

  async function policyPage(
    res: Response,
    status: number,
    options: Pick<PageOptions, 'error' | 'notice'>,
    submitted: Record<string, string | string[]> | null,
  ) {
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
    const versions = history.data.length
      ? html`<section aria-labelledby="history-heading"><h2 id="history-heading">Versions</h2><table class="cards"><caption>Policy versions (newest first)</caption><thead><tr><th scope="col">Version</th><th scope="col">Signed</th><th scope="col">Signed by</th><th scope="col">See</th></tr></thead>
<tbody>${history.data.map((p) => html`<tr><td data-label="Version">${p.version}</td><td data-label="Signed">${at(p.created_at)}</td><td data-label="Signed by">${p.consent.signer_name}</td><td data-label="See"><a href="/policy/versions/${p.version}">Version ${p.version}${p.version > 1 ? ' and what changed' : ''}</a></td></tr>`)}</tbody></table></section>`
      : '';
    const body = html`<section aria-labelledby="current-heading"><h2 id="current-heading">Current policy</h2>${current ? summary(current, currency) : found instanceof PolicyInvalidError ? html`<p>${found.detail}</p>` : html`<p>No policy yet: nothing can be proposed or approved for your account until you sign one.</p>`}</section>
${versions}
<section aria-labelledby="new-heading"><h2 id="new-heading">Sign a new version</h2>${policyForm(visitor, formValues(submitted, current), disclosure, currency)}</section>`;
    sendPage(res, status, page({ ...options, title: 'Policy', visitor, section: '/policy', body }));
  }

  router.get('/policy', requireSession, (req, res) => {
    const created = typeof req.query.created === 'string' && /^\d{1,9}$/.test(req.query.created) ? req.query.created : null;
    return policyPage(res, 200, { notice: created ? `Version ${created} is now in force.` : null }, null);
  });
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

  router.get('/policy/versions/:version', requireSession, async (req: Request<{ version: string }>, res: Response) => {
    const visitor = visitorOf(res);
    const show = (status: number, options: Omit<PageOptions, 'visitor' | 'section'>) =>
      sendPage(res, status, page({ ...options, visitor, section: '/policy' }));
    try {
      if (!/^[1-9]\d{0,8}$/.test(req.params.version)) throw new NotFoundError(`There is no policy version ${req.params.version}.`);
      const version = Number(req.params.version);
      const policy = await services.policies.get(actorFor(visitor, 'getPolicy'), version);
      const before = version > 1 ? await services.policies.get(actorFor(visitor, 'getPolicy'), version - 1).catch(() => null) : null;
      const changes =
        version === 1
          ? html`<p>The first version.</p>`
          : before
            ? diff(before, policy, currency)
            : html`<p>Version ${version - 1} cannot be shown (its limits are invalid), so there is nothing to compare with.</p>`;
      show(200, {
        title: `Policy version ${version}`,
        body: html`<section aria-labelledby="changes-heading"><h2 id="changes-heading">What changed</h2>${changes}</section><section aria-labelledby="terms-heading"><h2 id="terms-heading">Its terms</h2>${summary(policy, currency)}</section><p><a href="/policy">Back to the policy</a></p>`,
      });
    } catch (error) {
      const failed = formError(error);
      if (failed.status >= 500) throw error;
      show(failed.status, { title: 'Policy version', error: failed.error, body: html`<p><a href="/policy">Back to the policy</a></p>` });
    }
  });
  return router;
}
