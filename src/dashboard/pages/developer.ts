import { Router, type Request, type Response } from 'express';
import { SCOPES } from '../../auth/tokens.js';
import type { ClientView } from '../../services/clients.js';
import type { DashboardContext } from '../context.js';
import { html, type Html } from '../html.js';
import { csrfField, page, type PageOptions } from '../layout.js';
import { callsOf } from '../channel.js';
import { must } from '../present.js';
import { seeOther, sendPage } from '../respond.js';
import { visitorOf, type Visitor } from '../visitor.js';
import { requireSession } from './auth.js';

const SCOPE_HELP: Record<string, string> = {
  read: 'read portfolio, policies, ideas, orders, reports, the kill switch, events and webhook endpoints',
  write: 'non-trading changes, such as generating a daily report or managing webhook endpoints',
  trade: 'create policies, generate ideas, approve, reject and cancel orders, engage the kill switch',
  mcp: 'use the MCP server from AI assistants (with the scopes above)',
};

/** What the page after a create or rotate shows once: kept encrypted in the session until that page is read. */
interface SecretNotice {
  action: 'created' | 'rotated';
  client_id: string;
  client_secret: string;
  name: string;
}

const when = (date: string | null) => (date ? html`<time datetime="${date}">${date.slice(0, 16).replace('T', ' ')} UTC</time>` : 'never');

function secretPanel(notice: SecretNotice): Html {
  return html`<section class="secret" aria-labelledby="secret-heading">
<h2 id="secret-heading">${notice.action === 'created' ? 'Client created' : 'Secret rotated'}: copy the secret now</h2>
<p class="warning"><strong>This is the only time the secret is shown.</strong>
Only a hash of it is stored, so it cannot be shown again: store it in your integration's secret store now.
${notice.action === 'rotated' ? 'The previous secret and every token obtained with it no longer work.' : ''}</p>
<label for="client-id">Client ID</label><input id="client-id" readonly value="${notice.client_id}">
<label for="client-secret">Client secret</label>
<div class="copy-row"><input id="client-secret" readonly value="${notice.client_secret}" autocomplete="off" spellcheck="false">
<button type="button" data-copy="client-secret">Copy</button></div>
<p class="copy-status" role="status" aria-live="polite"></p>
</section>`;
}

const scopeChoice = (scope: string) =>
  html`<div class="check"><input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}"${scope === 'read' ? html` checked` : html``}
  aria-describedby="scope-${scope}-help"><label for="scope-${scope}">${scope}</label>
<span id="scope-${scope}-help" class="help">${SCOPE_HELP[scope]}</span></div>`;

function createForm(visitor: Visitor): Html {
  return html`<section aria-labelledby="create-heading"><h2 id="create-heading">Create client</h2>
<form method="post" action="/developer/clients" class="stack">${csrfField(visitor)}
<label for="client-name">Name</label><input id="client-name" name="name" required maxlength="100" aria-describedby="client-name-help">
<p id="client-name-help" class="help">The integration that will use it, for example "Robo-advisor".</p>
<fieldset><legend>Scopes (choose the narrowest the integration needs)</legend>
${SCOPES.map(scopeChoice)}
</fieldset>
<button type="submit">Create client</button>
</form></section>`;
}

function clientTable(clients: ClientView[]): Html {
  if (clients.length === 0) return html`<p>No clients yet.</p>`;
  return html`<table class="cards"><caption>Your API clients</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Client ID</th><th scope="col">Scopes</th><th scope="col">Created</th>
<th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
<tbody>${clients.map(clientRow)}</tbody></table>`;
}

function clientRow(c: ClientView): Html {
  const actions = html`<a href="/developer/clients/${c.client_id}/rotate">Rotate<span class="visually-hidden"> ${c.name}</span></a>
<a href="/developer/clients/${c.client_id}/revoke">Revoke<span class="visually-hidden"> ${c.name}</span></a>`;
  return html`<tr><td data-label="Name">${c.name}</td><td data-label="Client ID"><code>${c.client_id}</code></td>
<td data-label="Scopes">${c.scopes.join(' ')}</td><td data-label="Created">${when(c.created_at)}</td><td data-label="Last used">${when(c.last_used_at)}</td>
<td data-label="Status">${c.revoked_at ? html`revoked ${when(c.revoked_at)}` : c.rotated_at ? html`active (rotated ${when(c.rotated_at)})` : 'active'}</td>
<td data-label="Actions">${c.revoked_at ? '' : actions}</td></tr>`;
}

const CONFIRM = {
  rotate: {
    title: 'Rotate client secret',
    button: 'Rotate secret',
    text: 'A new secret is issued and shown once. The current secret and every token obtained with it stop working at once.',
  },
  revoke: {
    title: 'Revoke client',
    button: 'Revoke client',
    text: 'The client is revoked permanently: its secret and every token obtained with it stop working at once. This cannot be undone.',
  },
} as const;

export function developerRoutes({ sessions }: DashboardContext): Router {
  const router = Router();
  const show = (res: Response, status: number, options: Omit<PageOptions, 'visitor' | 'section'>) =>
    sendPage(res, status, page({ ...options, visitor: visitorOf(res), section: '/developer' }));

  async function developerPage(res: Response, status: number, error: PageOptions['error'] = null, notice: string | null = null) {
    const visitor = visitorOf(res);
    const flash = await sessions.takeFlash(visitor.token!);
    const parsed = flash ? (JSON.parse(flash) as Partial<SecretNotice>) : null;
    const secret = parsed?.client_secret ? (parsed as SecretNotice) : null;
    const clients = must(await callsOf(res).action('listClients'));
    show(res, status, {
      title: 'Developer',
      error,
      notice,
      body: html`${secret ? secretPanel(secret) : ''}${createForm(visitor)}
<section aria-labelledby="clients-heading"><h2 id="clients-heading">Clients</h2>${clientTable(clients)}</section>
<section aria-labelledby="webhooks-heading"><h2 id="webhooks-heading">Webhooks</h2>
<p><a href="/developer/webhooks">Manage webhook endpoints</a>: signed deliveries of order, idea, policy, kill-switch and report events.</p></section>`,
    });
  }

  async function remember(visitor: Visitor, notice: SecretNotice) {
    await sessions.setFlash(visitor.token!, JSON.stringify(notice));
  }

  router.get('/developer', requireSession, (req, res) =>
    developerPage(res, 200, null, req.query.revoked ? 'Client revoked: its secret and tokens no longer work.' : null),
  );
  router.post('/developer/clients', requireSession, async (req: Request, res: Response) => {
    const visitor = visitorOf(res);
    const form = req.body as { name?: string; scopes?: string | string[] };
    const scopes = form.scopes === undefined ? [] : ([] as string[]).concat(form.scopes);
    const created = await callsOf(res).action('createClient', { name: form.name ?? '', scopes }, { '/name': 'Name', '/scopes': 'Scopes' });
    if (!created.ok) return developerPage(res, created.status, created.error);
    const client = created.value;
    await remember(visitor, { action: 'created', client_id: client.client_id, client_secret: client.client_secret, name: client.name });
    seeOther(res, '/developer');
  });

  for (const action of ['rotate', 'revoke'] as const) {
    const confirm = CONFIRM[action];
    router.get(`/developer/clients/:id/${action}`, requireSession, async (req: Request<{ id: string }>, res: Response) => {
      const visitor = visitorOf(res);
      const client = must(await callsOf(res).action('listClients')).find((c) => c.client_id === req.params.id && !c.revoked_at);
      if (!client)
        return show(res, 404, {
          title: confirm.title,
          error: { detail: 'You have no active client with this id.' },
          body: html`<p><a href="/developer">Back to Developer</a></p>`,
        });
      show(res, 200, {
        title: confirm.title,
        body: html`<p>${confirm.title} <strong>${client.name}</strong> (scopes ${client.scopes.join(' ')}, created ${when(client.created_at)})?</p>
<p>${confirm.text}</p>
<form method="post" action="/developer/clients/${client.client_id}/${action}" class="actions">${csrfField(visitor)}
<button type="submit" class="danger">${confirm.button}</button> <a href="/developer">Cancel</a></form>`,
      });
    });
  }
  router.post('/developer/clients/:id/rotate', requireSession, async (req: Request<{ id: string }>, res: Response) => {
    const visitor = visitorOf(res);
    const client = must(await callsOf(res).action('rotateClient', { clientId: req.params.id }));
    await remember(visitor, { action: 'rotated', client_id: client.client_id, client_secret: client.client_secret, name: client.name });
    seeOther(res, '/developer');
  });
  router.post('/developer/clients/:id/revoke', requireSession, async (req: Request<{ id: string }>, res: Response) => {
    must(await callsOf(res).action('revokeClient', { clientId: req.params.id }));
    seeOther(res, '/developer?revoked=1');
  });
  return router;
}
