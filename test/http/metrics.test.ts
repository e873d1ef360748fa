// Prometheus metrics (issue 35, point 1): served on METRICS_PORT alone, in a format promtool accepts without a word,
// the request duration by route template (never a raw id) and channel, approvals by outcome and blocks by check,
// transitions, replays, limits' refusals, webhook attempts and lag, the pool, the kill switches, event-loop lag.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { graphql } from '../graphql/support.js';
import { activeMetrics, stopMetrics } from '../../src/observability/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, policyHolder } from '../support/trading.js';
import { Receiver, until, WEBHOOK_ENV } from '../support/webhook-receiver.js';

/** The value of one sample line (`name{labels} value`), or undefined when the text has none. */
const sample = (text: string, name: string, labels = ''): number | undefined => {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `) || (labels && l.startsWith(`${name}{${labels},`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('Prometheus metrics on METRICS_PORT', function () {
  this.timeout(60_000);
  let server: TestServer;
  let receiver: Receiver;
  const scrape = async () => {
    const response = await fetch(`http://127.0.0.1:${server.running.metrics!.port}/metrics`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };
  before(async () => {
    receiver = await new Receiver().listen();
    // Deliveries on their thread (PostgreSQL), as a service runs them: its attempts reach these metrics through its parent.
    server = await startTestServer({ ...WEBHOOK_ENV, WEBHOOK_THREAD: 'true', METRICS_PORT: '0', ACCOUNT_POLICIES_PER_MINUTE: '1' });
  });
  after(async () => {
    await server?.close();
    await receiver.close();
    stopMetrics();
  });

  it('serves /metrics on its own port only: never on the API’s or the dashboard’s', async () => {
    expect(activeMetrics()).to.not.equal(undefined);
    for (const base of [server.url, server.dashboardUrl]) expect((await fetch(`${base}/metrics`)).status).to.equal(404);
    const other = await fetch(`http://127.0.0.1:${server.running.metrics!.port}/`);
    expect(other.status).to.equal(404);
    expect((await fetch(`http://127.0.0.1:${server.running.metrics!.port}/metrics`, { method: 'POST' })).status).to.equal(405);
  });

  it('counts requests by route template and channel, approvals by outcome, transitions, replays and refusals', async () => {
    const holder = await policyHolder(server, { limits: { max_order_notional: 1000 } });
    await server.services.webhooks.create(holder.accountId, {
      url: `http://127.0.0.1:${receiver.port}/hooks`,
      eventTypes: ['order.filled'],
    });
    const [small, large] = await holder.propose(
      { symbol: 'VTI', side: 'buy', quantity: '1' },
      { symbol: 'VTI', side: 'buy', quantity: '100' },
    );
    const approve = (id: string, key?: string) =>
      server.api.request('POST', `/v1/orders/${id}/approve`, { token: holder.token, headers: key ? { 'Idempotency-Key': key } : {} });
    expect((await approve(small!.id, 'metrics-1')).status).to.equal(200);
    expect((await approve(small!.id, 'metrics-1')).headers.get('idempotent-replayed')).to.equal('true');
    expect((await approve(large!.id)).status).to.equal(422); // over max_order_notional
    expect((await server.api.request('GET', `/v1/orders/${small!.id}`, { token: holder.token })).status).to.equal(200);
    expect((await graphql(server, '{ killSwitch { engaged } }', { token: holder.token })).status).to.equal(200);
    expect((await fetch(`${server.dashboardUrl}/login`)).status).to.equal(200);
    await until('the delivery', () => receiver.received.length >= 1);
    // The delivery thread counts its attempt once the receiver has answered, and tells this process after that.
    const text = await until('the attempt counted', async () => {
      const scraped = await scrape();
      return sample(scraped, 'ias_webhook_attempts_total', 'outcome="success"') !== undefined && scraped;
    });
    const route = (path: string, channel: string, method = 'GET') =>
      sample(text, 'http_server_request_duration_seconds_count', `http_request_method="${method}",http_route="${path}"`) !== undefined &&
      text.includes(`http_route="${path}",http_response_status_class="2xx",channel="${channel}"`);
    expect(route('/v1/orders/{id}', 'rest')).to.equal(true);
    expect(route('/v1/orders/{id}/approve', 'rest', 'POST')).to.equal(true);
    expect(route('/graphql', 'graphql', 'POST')).to.equal(true);
    expect(route('/login', 'dashboard')).to.equal(true);
    // No raw id anywhere: an order's, an account's, a client's.
    for (const id of [small!.id, large!.id, holder.accountId, holder.clientId]) expect(text).to.not.include(id);
    expect(sample(text, 'ias_order_approvals_total', 'outcome="approved"')).to.equal(1);
    expect(sample(text, 'ias_order_approvals_total', 'outcome="checks-failed"')).to.equal(1);
    expect(sample(text, 'ias_order_blocked_checks_total', 'check="policy.max_order_notional"')).to.equal(1);
    expect(sample(text, 'ias_order_transitions_total', 'from="proposed",to="blocked"')).to.equal(1);
    expect(sample(text, 'ias_order_transitions_total', 'from="submitted",to="filled"')).to.equal(1);
    expect(sample(text, 'ias_idempotent_replays_total', 'channel="rest"')).to.equal(1);
    expect(sample(text, 'ias_events_recorded_total', 'type="order.filled"')).to.equal(1);
    expect(sample(text, 'ias_webhook_attempts_total', 'outcome="success"')).to.be.at.least(1);
    expect(sample(text, 'ias_webhook_delivery_lag_seconds_count')).to.be.at.least(1);
    expect(sample(text, 'ias_kill_switches_engaged', 'level="global"')).to.equal(0);
    expect(sample(text, 'db_client_connections_usage', 'state="idle"')).to.be.above(0);
    expect(sample(text, 'db_client_connection_pending_requests')).to.equal(0);
    expect(sample(text, 'db_client_connection_wait_time_seconds_count')).to.be.above(0);
    expect(sample(text, 'ias_rate_limit_store_breaker_open')).to.equal(0);
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).to.be.a('number');
    expect(sample(text, 'process_cpu_seconds_total')).to.be.above(0);
  });

  it('counts a kill switch engaged by level, and a refusal by the limit that refused it', async () => {
    const holder = await policyHolder(server);
    const engaged = await server.api.request('POST', '/v1/kill-switch', { token: holder.token, json: { reason: 'metrics test' } });
    expect(engaged.status, JSON.stringify(engaged.body)).to.be.oneOf([200, 201]);
    // A second policy version within the minute is past the account's quota of one (set for this suite).
    const again = await createPolicy(server, holder.token).catch((error: Error) => error);
    expect(String(again)).to.include('429');
    const text = await scrape();
    expect(sample(text, 'ias_kill_switches_engaged', 'level="account"')).to.equal(1);
    expect(sample(text, 'ias_rate_limit_refusals_total', 'policy="policies"')).to.equal(1);
  });

  it('passes promtool check metrics without a warning', async function () {
    if (spawnSync('promtool', ['--version']).error) this.skip(); // .ci/run installs it (Debian's prometheus package)
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: await scrape(), encoding: 'utf8' });
    expect(`${checked.stdout}${checked.stderr}`.trim()).to.equal('');
    expect(checked.status).to.equal(0);
  });
});
