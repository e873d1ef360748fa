import { Router, type Request, type Response } from 'express';
import { EVENT_TYPES } from '../../services/events/outbox.js';
import type { DeliveryView, EndpointView } from '../../services/webhooks/views.js';
import type { DashboardContext } from '../context.js';
import { html, type Html } from '../html.js';
import { csrfField, page, type PageOptions } from '../layout.js';
import { callsOf } from '../channel.js';
import { must } from '../present.js';
import { seeOther, sendPage } from '../respond.js';
import { visitorOf, type Visitor } from '../visitor.js';
import { requireSession } from './auth.js';

/** The secret of an endpoint just made or rotated: kept in the session's flash until the next page shows it, once. */
interface WebhookSecretNotice {
  kind: 'webhook-secret';
  action: 'created' | 'rotated';
  endpoint_id: string;
  secret: string;
}

const stamp = (date: string | null) => (date ? html`<time datetime="${date}">${date.slice(0, 19).replace('T', ' ')} UTC</time>` : html`—`);

function secretPanel(notice: WebhookSecretNotice): Html {
  return html`<section class="secret" aria-labelledby="secret-heading">
<h2 id="secret-heading">${notice.action === 'created' ? 'Endpoint added' : 'Secret rotated'}: copy the signing secret now</h2>
<p class="warning"><strong>This is the only time the secret is shown.</strong>
Your receiver verifies every delivery with it (any Standard Webhooks library).
${notice.action === 'rotated' ? 'For 24 hours deliveries carry a signature by the previous secret too, so switch your receiver within that time.' : ''}</p>
<label for="signing-secret">Signing secret</label>
<div class="copy-row"><input id="signing-secret" readonly value="${notice.secret}" autocomplete="off" spellcheck="false">
<button type="button" data-copy="signing-secret">Copy</button></div>
<p class="copy-status" role="status" aria-live="polite"></p>
</section>`;
}

const eventChoice = (type: string) =>
  html`<div class="check"><input type="checkbox" id="type-${type}" name="event_types" value="${type}"><label for="type-${type}">${type}</label></div>`;

function addForm(visitor: Visitor): Html {
  return html`<section aria-labelledby="add-heading"><h2 id="add-heading">Add endpoint</h2>
<form method="post" action="/developer/webhooks" class="stack">${csrfField(visitor)}
<label for="endpoint-url">Endpoint URL</label><input id="endpoint-url" name="url" type="url" required maxlength="2048" aria-describedby="endpoint-url-help">
<p id="endpoint-url-help" class="help">An https:// URL on the public internet that answers 2xx within 10 seconds.</p>
<label for="endpoint-description">Description</label><input id="endpoint-description" name="description" maxlength="500">
<fieldset><legend>Event types to send</legend>
${EVENT_TYPES.map(eventChoice)}
</fieldset>
<button type="submit">Add endpoint</button>
</form></section>`;
}

const state = (e: EndpointView) => {
  if (!e.enabled) return html`disabled`;
  // Backing off: its attempts went unanswered in a row; "Retry now" on a delivery ends the pause.
  if (e.paused_until) return html`enabled, no answer to its last attempts: paused until ${stamp(e.paused_until)}`;
  return e.failing_since ? html`enabled, failing since ${stamp(e.failing_since)}` : html`enabled`;
};

function endpointTable(endpoints: EndpointView[]): Html {
  if (endpoints.length === 0) return html`<p>No endpoints yet.</p>`;
  return html`<table class="cards"><caption>Your webhook endpoints</caption>
<thead><tr><th scope="col">Endpoint URL</th><th scope="col">Description</th><th scope="col">Event types</th><th scope="col">State</th>
<th scope="col">Actions</th></tr></thead>
<tbody>${endpoints.map(endpointRow)}</tbody></table>`;
}

const endpointRow = (e: EndpointView) => html`<tr><td data-label="Endpoint URL"><code>${e.url}</code></td>
<td data-label="Description">${e.description || '—'}</td><td data-label="Event types">${e.event_types.join(', ')}</td><td data-label="State">${state(e)}</td>
<td data-label="Actions"><a href="/developer/webhooks/${e.id}">Manage<span class="visually-hidden"> ${e.url}</span></a></td></tr>`;

/** The dashboard notice of endpoints the service disabled by itself (a 410, or 5 days of failures). */
function disabledNotices(endpoints: EndpointView[]): Html {
  const stopped = endpoints.filter((e) => !e.enabled && e.disabled_reason && e.disabled_reason !== 'disabled by hand');
  const notice = (e: EndpointView) => html`<div class="warning" role="alert"><p><strong>Webhook endpoint disabled:</strong>
<code>${e.url}</code>. ${e.disabled_reason} <a href="/developer/webhooks/${e.id}">Manage it</a>.</p></div>`;
  return html`${stopped.map(notice)}`;
}

function deliveryLog(endpoint: EndpointView, deliveries: DeliveryView[], visitor: Visitor): Html {
  if (deliveries.length === 0) return html`<p>No deliveries yet.</p>`;
  const retry = (d: DeliveryView) => {
    const target = `/developer/webhooks/${endpoint.id}/deliveries/${d.id}/retry`;
    const label = html`Retry now<span class="visually-hidden"> ${d.event_id}</span>`;
    return html`<form method="post" action="${target}">${csrfField(visitor)}<button type="submit">${label}</button></form>`;
  };
  const row = (d: DeliveryView) => html`<tr><td data-label="Event"><code>${d.event_id}</code></td><td data-label="Type">${d.type}</td>
<td data-label="Attempt">${d.attempts}</td><td data-label="Status code">${d.last_status_code ?? '—'}</td>
<td data-label="Latency">${d.last_latency_ms === null ? '—' : `${d.last_latency_ms} ms`}</td>
<td data-label="Result">${d.status}${d.last_error ? html`: ${d.last_error}` : ''}</td>
<td data-label="Next retry">${d.status === 'pending' ? stamp(d.next_attempt_at) : '—'}</td>
<td data-label="Actions">${d.status === 'succeeded' ? '' : retry(d)}</td></tr>`;
  return html`<table class="cards"><caption>Delivery log (latest 50)</caption>
<thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Attempt</th><th scope="col">Status code</th><th scope="col">Latency</th>
<th scope="col">Result</th><th scope="col">Next retry</th><th scope="col">Actions</th></tr></thead>
<tbody>${deliveries.map(row)}</tbody></table>`;
}

const CONFIRM = {
  rotate: {
    title: 'Rotate signing secret',
    button: 'Rotate secret',
    danger: false,
    text: 'A new secret is made and shown once. For 24 hours every delivery is signed by both the current and the new secret, then by the new one only.',
  },
  delete: {
    title: 'Delete endpoint',
    button: 'Delete endpoint',
    danger: true,
    text: 'The endpoint, its pending deliveries and its delivery log are deleted. This cannot be undone.',
  },
} as const;

/** The add form's labels for the fields the webhook service names. */
const ENDPOINT_LABELS = {
  '/url': 'Endpoint URL',
  '/description': 'Description',
  '/event_types': 'Event types to send',
  '/event_types/*': 'Event types to send',
};

/**
 * Developer → Webhooks: endpoints, their secrets and their delivery logs, for the signed-in human. Every change is the
 * operation an API client calls (createWebhookEndpoint, updateWebhookEndpoint, ...), through the same pipeline.
 */
export function webhookRoutes({ sessions }: DashboardContext): Router {
  const router = Router();
  const show = (res: Response, status: number, options: Omit<PageOptions, 'visitor' | 'section'>) =>
    sendPage(res, status, page({ ...options, visitor: visitorOf(res), section: '/developer' }));
  const takeSecret = async (visitor: Visitor, endpointId?: string) => {
    const flash = await sessions.takeFlash(visitor.token!);
    const notice = flash ? (JSON.parse(flash) as Partial<WebhookSecretNotice>) : null;
    return notice?.kind === 'webhook-secret' && (!endpointId || notice.endpoint_id === endpointId) ? (notice as WebhookSecretNotice) : null;
  };

  async function listPage(res: Response, status: number, error: PageOptions['error'] = null, notice: string | null = null) {
    // At most 16 endpoints per account: one page of the default 20 holds them all.
    const endpoints = must(await callsOf(res).operation('listWebhookEndpoints')).data;
    show(res, status, {
      title: 'Webhooks',
      error,
      notice,
      body: html`<p><a href="/developer">Back to Developer</a> · Events are also listed by <code>GET /v1/events</code> for reconciliation.</p>
${disabledNotices(endpoints)}${addForm(visitorOf(res))}
<section aria-labelledby="endpoints-heading"><h2 id="endpoints-heading">Endpoints</h2>${endpointTable(endpoints)}</section>`,
    });
  }

  async function endpointPage(res: Response, id: string, notice: string | null = null) {
    const visitor = visitorOf(res);
    const calls = callsOf(res);
    const endpoint = must(await calls.operation('getWebhookEndpoint', { path: { id } }));
    const deliveries = must(await calls.action('webhookDeliveries', { id }));
    const secret = await takeSecret(visitor, id);
    const action = (path: string, label: string, danger = false) => {
      const target = `/developer/webhooks/${endpoint.id}/${path}`;
      const look = danger ? html` class="danger"` : html``;
      return html`<form method="post" action="${target}">${csrfField(visitor)}<button type="submit"${look}>${label}</button></form>`;
    };
    show(res, 200, {
      title: 'Webhook endpoint',
      notice,
      body: html`${secret ? secretPanel(secret) : ''}${disabledNotices([endpoint])}
<dl class="summary"><dt>Endpoint URL</dt><dd><code>${endpoint.url}</code></dd><dt>Description</dt><dd>${endpoint.description || '—'}</dd>
<dt>Event types</dt><dd>${endpoint.event_types.join(', ')}</dd><dt>State</dt><dd>${state(endpoint)}</dd><dt>Added</dt><dd>${stamp(endpoint.created_at)}</dd>
${endpoint.previous_secret_expires_at ? html`<dt>Previous secret</dt><dd>still signs until ${stamp(endpoint.previous_secret_expires_at)}</dd>` : ''}</dl>
<section aria-labelledby="actions-heading"><h2 id="actions-heading">Actions</h2><div class="actions">
${endpoint.enabled ? html`${action('test', 'Send test event')}${action('disable', 'Disable')}` : action('enable', 'Enable')}
<a href="/developer/webhooks/${endpoint.id}/rotate">Rotate secret</a> <a href="/developer/webhooks/${endpoint.id}/delete">Delete</a></div></section>
<section aria-labelledby="log-heading"><h2 id="log-heading">Deliveries</h2>${deliveryLog(endpoint, deliveries, visitor)}</section>
<p><a href="/developer/webhooks">All endpoints</a></p>`,
    });
  }

  const remember = (visitor: Visitor, notice: WebhookSecretNotice) => sessions.setFlash(visitor.token!, JSON.stringify(notice));

  router.get('/developer/webhooks', requireSession, (req, res) => listPage(res, 200, null, req.query.deleted ? 'Endpoint deleted.' : null));
  router.post('/developer/webhooks', requireSession, async (req: Request, res: Response) => {
    const form = req.body as { url?: string; description?: string; event_types?: string | string[] };
    const body = {
      url: form.url ?? '',
      event_types: ([] as string[]).concat(form.event_types ?? []),
      ...(form.description?.trim() ? { description: form.description } : {}),
    };
    const created = await callsOf(res).operation('createWebhookEndpoint', { body }, ENDPOINT_LABELS);
    if (!created.ok) return listPage(res, created.status, created.error);
    const endpoint = created.value;
    await remember(visitorOf(res), { kind: 'webhook-secret', action: 'created', endpoint_id: endpoint.id, secret: endpoint.secret });
    seeOther(res, `/developer/webhooks/${endpoint.id}`);
  });
  const NOTICES: Record<string, string> = {
    test: 'Test event queued: it appears in the log below within a moment.',
    disabled: 'Endpoint disabled: nothing is sent to it until you enable it.',
    enabled: 'Endpoint enabled.',
    retried: 'Delivery queued to be sent again now.',
  };
  router.get('/developer/webhooks/:id', requireSession, (req: Request<{ id: string }>, res: Response) =>
    endpointPage(res, req.params.id, (typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined) ?? null),
  );
  for (const [kind, confirm] of Object.entries(CONFIRM)) {
    router.get(`/developer/webhooks/:id/${kind}`, requireSession, async (req: Request<{ id: string }>, res: Response) => {
      const endpoint = must(await callsOf(res).operation('getWebhookEndpoint', { path: { id: req.params.id } }));
      show(res, 200, {
        title: confirm.title,
        body: html`<p>${confirm.title} for <code>${endpoint.url}</code>?</p><p>${confirm.text}</p>
<form method="post" action="/developer/webhooks/${endpoint.id}/${kind}" class="actions">${csrfField(visitorOf(res))}
<button type="submit"${confirm.danger ? html` class="danger"` : html``}>${confirm.button}</button>
<a href="/developer/webhooks/${endpoint.id}">Cancel</a></form>`,
      });
    });
  }
  router.post('/developer/webhooks/:id/rotate', requireSession, async (req: Request<{ id: string }>, res: Response) => {
    const endpoint = must(await callsOf(res).operation('rotateWebhookEndpointSecret', { path: { id: req.params.id } }));
    await remember(visitorOf(res), { kind: 'webhook-secret', action: 'rotated', endpoint_id: endpoint.id, secret: endpoint.secret });
    seeOther(res, `/developer/webhooks/${endpoint.id}`);
  });
  router.post('/developer/webhooks/:id/delete', requireSession, async (req: Request<{ id: string }>, res: Response) => {
    must(await callsOf(res).operation('deleteWebhookEndpoint', { path: { id: req.params.id } }));
    seeOther(res, '/developer/webhooks?deleted=1');
  });
  router.post('/developer/webhooks/:id/test', requireSession, async (req: Request<{ id: string }>, res: Response) => {
    must(await callsOf(res).operation('testWebhookEndpoint', { path: { id: req.params.id } }));
    seeOther(res, `/developer/webhooks/${req.params.id}?done=test`);
  });
  for (const [path, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    router.post(`/developer/webhooks/:id/${path}`, requireSession, async (req: Request<{ id: string }>, res: Response) => {
      must(await callsOf(res).operation('updateWebhookEndpoint', { path: { id: req.params.id }, body: { enabled } }));
      seeOther(res, `/developer/webhooks/${req.params.id}?done=${enabled ? 'enabled' : 'disabled'}`);
    });
  }
  router.post(
    '/developer/webhooks/:id/deliveries/:delivery/retry',
    requireSession,
    async (req: Request<{ id: string; delivery: string }>, res: Response) => {
      must(await callsOf(res).action('retryDelivery', { id: req.params.id, delivery: req.params.delivery }));
      seeOther(res, `/developer/webhooks/${req.params.id}?done=retried`);
    },
  );
  return router;
}
