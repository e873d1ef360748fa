import { Router, type Request, type Response } from 'express';
import type { DashboardContext } from '../context.js';
import { at } from '../format.js';
import { html, type Html } from '../html.js';
import { page, type PageOptions } from '../layout.js';
import { callsOf } from '../channel.js';
import { must, PageFailure } from '../present.js';
import { seeOther, sendPage } from '../respond.js';
import { visitorOf } from '../visitor.js';
import { PAPER_CURRENCY } from '../../services/ledger.js';
import type { Policy } from '../../services/policies.js';
import { requireSession } from './auth.js';
import { diff, summary } from './policy-diff.js';
import { formValues, POLICY_LABELS, policyForm, policyRequest } from './policy-form.js';

const HISTORY = 20;
const currency = PAPER_CURRENCY;

function versionsTable(policies: Policy[]): Html {
  const row = (p: Policy) => html`<tr><td data-label="Version">${p.version}</td><td data-label="Signed">${at(p.created_at)}</td>
<td data-label="Signed by">${p.consent.signer_name}</td>
<td data-label="See"><a href="/policy/versions/${p.version}">Version ${p.version}${p.version > 1 ? ' and what changed' : ''}</a></td></tr>`;
  return html`<table class="cards"><caption>Policy versions (newest first)</caption>
<thead><tr><th scope="col">Version</th><th scope="col">Signed</th><th scope="col">Signed by</th><th scope="col">See</th></tr></thead>
<tbody>${policies.map(row)}</tbody></table>`;
}

/** The investment policy: the version in force, its history with each version and what changed, and signing a new version. */
export function policyRoutes(_context: DashboardContext): Router {
  const router = Router();

  async function policyPage(
    res: Response,
    status: number,
    options: Pick<PageOptions, 'error' | 'notice'>,
    submitted: Record<string, string | string[]> | null,
  ) {
    const visitor = visitorOf(res);
    const calls = callsOf(res);
    const disclosure = must(await calls.operation('getCurrentDisclosure'));
    const found = await calls.operation('getCurrentPolicy');
    // None yet (not-found), or a version stored before limits were bounded (policy-invalid: its problem says so, and
    // the form below signs a valid one).
    if (!found.ok && found.slug !== 'not-found' && found.slug !== 'policy-invalid') throw new PageFailure(found);
    const current = found.ok ? found.value : null;
    const invalid = !found.ok && found.slug === 'policy-invalid' ? found.error.detail : null;
    const history = must(await calls.operation('listPolicies', { query: { limit: HISTORY } }));
    const versions = history.data.length
      ? html`<section aria-labelledby="history-heading"><h2 id="history-heading">Versions</h2>${versionsTable(history.data)}</section>`
      : '';
    const inForce = current
      ? summary(current, currency)
      : invalid
        ? html`<p>${invalid}</p>`
        : html`<p>No policy yet: nothing can be proposed or approved for your account until you sign one.</p>`;
    const body = html`<section aria-labelledby="current-heading"><h2 id="current-heading">Current policy</h2>${inForce}</section>
${versions}
<section aria-labelledby="new-heading"><h2 id="new-heading">Sign a new version</h2>
${policyForm(visitor, formValues(submitted, current), disclosure, currency)}</section>`;
    sendPage(res, status, page({ ...options, title: 'Policy', visitor, section: '/policy', body }));
  }

  router.get('/policy', requireSession, (req, res) => {
    const created = typeof req.query.created === 'string' && /^\d{1,9}$/.test(req.query.created) ? req.query.created : null;
    return policyPage(res, 200, { notice: created ? `Version ${created} is now in force.` : null }, null);
  });
  router.post('/policy', requireSession, async (req: Request, res: Response) => {
    const form = req.body as Record<string, string | string[]>;
    const calls = callsOf(res);
    const { version } = must(await calls.operation('getCurrentDisclosure'));
    const created = await calls.operation('createPolicy', { body: policyRequest(form, version) }, POLICY_LABELS);
    if (!created.ok) return policyPage(res, created.status, { error: created.error }, form);
    seeOther(res, `/policy?created=${created.value.version}`);
  });

  router.get('/policy/versions/:version', requireSession, async (req: Request<{ version: string }>, res: Response) => {
    const calls = callsOf(res);
    const show = (status: number, options: Omit<PageOptions, 'visitor' | 'section'>) =>
      sendPage(res, status, page({ ...options, visitor: visitorOf(res), section: '/policy' }));
    // The address's number as the contract's integer (anything else goes as typed, for the validator to name).
    const given = req.params.version;
    const version = /^\d{1,9}$/.test(given) ? Number(given) : given;
    const found = await calls.operation('getPolicy', { path: { version } }, { '/path/version': 'version' });
    if (!found.ok)
      return show(found.status, {
        title: 'Policy version',
        error: found.error,
        body: html`<p><a href="/policy">Back to the policy</a></p>`,
      });
    const policy = found.value;
    const before = policy.version > 1 ? await calls.operation('getPolicy', { path: { version: policy.version - 1 } }) : null;
    const changes =
      policy.version === 1
        ? html`<p>The first version.</p>`
        : before?.ok
          ? diff(before.value, policy, currency)
          : html`<p>Version ${policy.version - 1} cannot be shown (its limits are invalid), so there is nothing to compare with.</p>`;
    show(200, {
      title: `Policy version ${policy.version}`,
      body: html`<section aria-labelledby="changes-heading"><h2 id="changes-heading">What changed</h2>${changes}</section>
<section aria-labelledby="terms-heading"><h2 id="terms-heading">Its terms</h2>${summary(policy, currency)}</section>
<p><a href="/policy">Back to the policy</a></p>`,
    });
  });
  return router;
}
