import { Router, type Request, type Response } from 'express';
import type { BrokerConnectionState, BrokerConnectionView } from '../../services/broker-connections.js';
import type { DashboardContext } from '../context.js';
import { at } from '../format.js';
import { html, type Html } from '../html.js';
import { csrfField, page, type PageOptions } from '../layout.js';
import { callsOf } from '../channel.js';
import { must } from '../present.js';
import { seeOther, sendPage } from '../respond.js';
import { visitorOf, type Visitor } from '../visitor.js';
import { requireSession } from './auth.js';

/** The form's labels for the fields the connection names. */
const LABELS = { '/broker': 'Broker', '/key_id': 'API key ID', '/secret_key': 'Secret key' };

const NOTICES: Record<string, string> = {
  connected: 'Connected: the keys were checked with Alpaca.',
  disconnected: 'Disconnected: the keys were deleted from this service. Your orders go to the built-in paper broker again.',
};

/** What the form was sent, to show it again after a refusal: never the secret key. */
interface Sent {
  keyId: string;
  live: boolean;
}

function connectionSummary(connection: BrokerConnectionView, visitor: Visitor): Html {
  return html`<section aria-labelledby="connection-heading"><h2 id="connection-heading">Connected account</h2>
<dl class="summary"><dt>Broker</dt><dd>Alpaca</dd><dt>Account</dt><dd>${connection.live ? 'Live (real money)' : 'Paper'}</dd>
<dt>API key ID</dt><dd><code>${connection.key_id}</code></dd><dt>Broker account number</dt><dd><code>${connection.broker_account_number}</code></dd>
<dt>Connected</dt><dd>${at(connection.connected_at)}</dd></dl>
<p>The secret key is stored encrypted and is never shown again.</p>
<form method="post" action="/broker/disconnect" class="actions">${csrfField(visitor)}
<button type="submit" class="danger">Disconnect</button></form>
<p class="help">Disconnecting deletes the keys from this service; revoke them in Alpaca's dashboard too if you no longer use them.</p>
</section>`;
}

function environmentChoice(state: BrokerConnectionState, sent: Sent | null): Html {
  const live = state.liveEnabled && sent?.live === true;
  const liveNote = state.liveEnabled
    ? html`<span id="environment-live-help" class="help">Real money: orders you approve are placed in your live Alpaca account.</span>`
    : html`<span id="environment-live-help" class="help">Live trading is off on this service: its operator enables it
(<code>ALPACA_LIVE_ENABLED=true</code>).</span>`;
  return html`<fieldset><legend>Account</legend>
<div class="check"><input type="radio" id="environment-paper" name="environment" value="paper"${live ? '' : html` checked`}>
<label for="environment-paper">Paper</label></div>
<div class="check"><input type="radio" id="environment-live" name="environment" value="live"${live ? html` checked` : ''}${
    state.liveEnabled ? '' : html` disabled`
  } aria-describedby="environment-live-help"><label for="environment-live">Live</label>
${liveNote}</div>
</fieldset>`;
}

function connectForm(state: BrokerConnectionState, visitor: Visitor, sent: Sent | null): Html {
  const heading = state.connection ? 'Connect other keys' : 'Connect an Alpaca account';
  if (!state.canConnect) {
    return html`<section aria-labelledby="connect-heading"><h2 id="connect-heading">${heading}</h2>
<p>Connecting a broker is not available on this service yet: its operator has not set the key that encrypts stored
broker keys (<code>BROKER_CREDENTIALS_KEY</code>).</p></section>`;
  }
  const derived = state.keyDerived
    ? html`<p class="warning"><strong>Demo service:</strong> keys are encrypted with a fixed demonstration key that protects
nothing. Use paper keys you can revoke.</p>`
    : '';
  return html`<section aria-labelledby="connect-heading"><h2 id="connect-heading">${heading}</h2>
<p>Alpaca's paper accounts are free. In Alpaca's dashboard, choose the paper account, then <em>API Keys</em> → <em>Generate</em>,
and copy both keys here. The keys are checked with Alpaca before they are kept; the secret key is stored encrypted.</p>
${derived}
<form method="post" action="/broker" class="stack">${csrfField(visitor)}<input type="hidden" name="broker" value="alpaca">
<label for="key-id">API key ID</label><input id="key-id" name="key_id" required maxlength="128" autocomplete="off" spellcheck="false"
 value="${sent?.keyId ?? ''}">
<label for="secret-key">Secret key</label><input id="secret-key" name="secret_key" type="password" required maxlength="256"
 autocomplete="new-password" spellcheck="false">
${environmentChoice(state, sent)}
<button type="submit">${state.connection ? 'Connect these keys instead' : 'Connect'}</button>
</form></section>`;
}

/** Broker: the signed-in holder's connection to Alpaca (paper or live), made, shown and ended here. */
export function brokerRoutes(_context: DashboardContext): Router {
  const router = Router();

  async function brokerPage(res: Response, status: number, options: Pick<PageOptions, 'error' | 'notice'> = {}, sent: Sent | null = null) {
    const visitor = visitorOf(res);
    const state = must(await callsOf(res).action('brokerConnection'));
    const connection = state.connection
      ? connectionSummary(state.connection, visitor)
      : html`<p>Not connected: approved orders fill in this service's built-in paper broker, at simulated prices.</p>`;
    sendPage(
      res,
      status,
      page({ ...options, title: 'Broker', visitor, section: '/broker', body: html`${connection}${connectForm(state, visitor, sent)}` }),
    );
  }

  router.get('/broker', requireSession, (req, res) =>
    brokerPage(res, 200, { notice: (typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined) ?? null }),
  );
  router.post('/broker', requireSession, async (req: Request, res: Response) => {
    const form = req.body as { broker?: string; key_id?: string; secret_key?: string; environment?: string };
    const sent = { keyId: String(form.key_id ?? '').slice(0, 128), live: form.environment === 'live' };
    const input = {
      broker: String(form.broker ?? 'alpaca'),
      keyId: String(form.key_id ?? ''),
      secretKey: String(form.secret_key ?? ''),
      live: sent.live,
    };
    const connected = await callsOf(res).action('connectBroker', input, LABELS);
    if (!connected.ok) return brokerPage(res, connected.status, { error: connected.error }, sent);
    seeOther(res, '/broker?done=connected');
  });
  router.post('/broker/disconnect', requireSession, async (_req: Request, res: Response) => {
    must(await callsOf(res).action('disconnectBroker'));
    seeOther(res, '/broker?done=disconnected');
  });
  return router;
}
