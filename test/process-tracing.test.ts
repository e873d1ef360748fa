import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { openDatabase } from '../db/connect.js';
import { systemClock } from '../src/clock.js';
import { Store } from '../src/services/store.js';
import { WebhookEndpoints } from '../src/services/webhooks/endpoints.js';
import { testBackend } from './support/database.js';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';
import { startServiceProcess, type ServiceProcess } from './support/process.js';
import { freePort } from './support/server.js';
import { Receiver, until, WEBHOOK_ENV } from './support/webhook-receiver.js';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** A caller's own trace: its trace id and the id of its span that sends the request. */
const callerTrace = () => {
  const [traceId, spanId] = [hex(16), hex(8)];
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
};

async function tokenOf(service: ServiceProcess): Promise<string> {
  const { id, secret } = service.credentials();
  const response = await fetch(`http://127.0.0.1:${service.port}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'read write trade' }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

/** An empty database of this test's own (the service migrates it), dropped afterwards. */
async function emptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `ias_trace_${hex(6)}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  };
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}

describe('OpenTelemetry traces of the service process', () => {
  /** The service processes here share one PostgreSQL database (their own), when the tests run on PostgreSQL. */
  let database: { url: string; drop(): Promise<void> } | undefined;
  before(async () => {
    if ((await testBackend()) === 'postgres') database = await emptyDatabase();
  });
  after(() => database?.drop());

  describe('OTEL_EXPORTER_OTLP_ENDPOINT, http/json', () => {
    const caller = callerTrace();
    const refused = callerTrace();
    let service: ServiceProcess | undefined;
    let log = '';
    let metricsPort: number;
    let orderId: string;
    let problem: Record<string, unknown>;
    const otlp = new OtlpReceiver();
    const hooks = new Receiver();
    const spans = () => otlp.trace(caller.traceId);
    const named = (name: string) => spans().find((span) => span.name === name);

    before(async function () {
      this.timeout(120_000);
      if (!database) this.skip(); // the PostgreSQL spans and the webhook thread need PostgreSQL
      await Promise.all([otlp.listen(), hooks.listen()]);
      metricsPort = await freePort();
      service = await startServiceProcess({
        ...WEBHOOK_ENV,
        DATABASE_URL: database.url,
        METRICS_PORT: String(metricsPort),
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      });
      log = service.output;
      service.child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
      // The demo account's webhook endpoint, as its holder would add it in the dashboard.
      const db = await openDatabase({ databaseUrl: database.url });
      try {
        const client = await db.kysely
          .selectFrom('api_clients')
          .select('account_id')
          .where('client_id', '=', service.credentials().id)
          .executeTakeFirstOrThrow();
        const endpoints = new WebhookEndpoints(new Store(db.kysely), systemClock, { allowPrivateNetworks: true, retentionDays: 30 });
        await endpoints.create(client.account_id, { url: hooks.url, eventTypes: ['order.submitted', 'order.filled'] });
      } finally {
        await db.close();
      }
      const base = `http://127.0.0.1:${service.port}`;
      const headers = { authorization: `Bearer ${await tokenOf(service)}`, 'content-type': 'application/json' };
      const generated = await fetch(`${base}/v1/ideas/generate`, { method: 'POST', headers, body: '{"mode":"invest_cash","market":"US"}' });
      orderId = ((await generated.json()) as { ideas: { orders: { id: string }[] }[] }).ideas[0]!.orders[0]!.id;
      const approval = await fetch(`${base}/v1/orders/${orderId}/approve`, {
        method: 'POST',
        headers: { ...headers, traceparent: caller.traceparent, 'idempotency-key': `trace-${hex(4)}` },
        body: '{}',
      });
      expect(approval.status, await approval.text()).to.equal(200);
      const unknown = await fetch(`${base}/v1/orders/ord_unknown/approve`, {
        method: 'POST',
        headers: { ...headers, traceparent: refused.traceparent },
        body: '{}',
      });
      problem = (await unknown.json()) as Record<string, unknown>;
      await until('the approval’s server span', () => spans().find((span) => span.kind === 2));
    });
    after(async () => {
      service?.stop();
      await Promise.all([otlp.close(), hooks.close()]);
    });

    it('continues the caller’s traceparent: the approval’s server span is its span’s child, named by the route template, never the id', () => {
      const serving = JSON.parse(service!.output.split('\n').find((line) => line.includes('"msg":"serving"'))!) as { tracing: boolean };
      expect(serving.tracing).to.equal(true);
      const server = spans().find((span) => span.kind === 2)!;
      expect(server.parentSpanId).to.equal(caller.spanId);
      expect(server.attributes['http.route']).to.equal('/v1/orders/{id}/approve');
      expect(server.name).to.equal('POST /v1/orders/{id}/approve');
      for (const span of spans()) expect(`${span.name} ${span.attributes['http.route'] ?? ''}`).to.not.include(orderId);
    });

    it('puts the pipeline’s steps and the PostgreSQL queries in the request’s trace, each query under the step that made it', () => {
      const server = spans().find((span) => span.kind === 2)!;
      const [authorize, validate, idempotency, useCase] = ['authorize', 'validate', 'idempotency', 'use case'].map((step) =>
        named(`${step} approveOrder`),
      );
      expect(authorize?.parentSpanId, 'authorize').to.equal(server.spanId);
      expect(validate?.parentSpanId, 'validate').to.equal(server.spanId);
      expect(idempotency?.parentSpanId, 'idempotency').to.equal(server.spanId);
      // The use case runs inside its Idempotency-Key's transaction.
      expect(useCase?.parentSpanId, 'use case').to.equal(idempotency!.spanId);
      const queries = spans().filter((span) => span.attributes['db.system.name'] === 'postgresql' && span.kind === 3);
      const underUseCase = queries.filter((span) => span.parentSpanId === useCase!.spanId);
      expect(underUseCase.map((span) => span.attributes['db.query.text'])).to.include.members(['savepoint use_case']);
      expect(queries.some((span) => span.parentSpanId === idempotency!.spanId)).to.equal(true);
    });

    it('sends each webhook of the approval’s events with a traceparent of its trace, from a delivery span under the use case', async () => {
      const received = await until('both deliveries', () => (hooks.received.length >= 2 ? hooks.received : undefined));
      const useCase = named('use case approveOrder')!;
      for (const delivery of received) {
        const type = (JSON.parse(delivery.body) as { type: string }).type;
        const traceparent = String(delivery.headers.traceparent);
        const header = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent);
        expect(header?.[1], `${type}: ${traceparent}`).to.equal(caller.traceId);
        // Sent from the webhook thread, whose span of the attempt is exported too.
        const span = await until(`the span of ${type}`, () => spans().find((s) => s.spanId === header![2]));
        expect(span).to.include({ name: `webhook ${type}`, kind: 3, parentSpanId: useCase.spanId });
        expect(span.attributes['http.response.status_code']).to.equal(204);
      }
      expect(received.map((r) => (JSON.parse(r.body) as { type: string }).type).sort()).to.deep.equal(['order.filled', 'order.submitted']);
    });

    it('names the trace in the request’s problem document and log line (`trace_id`, next to `request_id`)', () => {
      expect(problem).to.include({ status: 404, trace_id: refused.traceId });
      expect(problem.request_id).to.be.a('string');
      const lines = log.split('\n').filter((line) => line.includes('"msg":"request completed"'));
      const line = (path: string) => JSON.parse(lines.find((l) => l.includes(`"path":"${path}"`))!) as Record<string, unknown>;
      expect(line(`/v1/orders/${orderId}/approve`).trace_id).to.equal(caller.traceId);
      expect(line('/v1/orders/ord_unknown/approve')).to.include({ trace_id: refused.traceId, reqId: problem.request_id });
    });

    it('serves /metrics on its own port as before, and traces neither a scrape nor a health check', async () => {
      const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(await scrape.text()).to.include('http_server_request_duration_seconds_bucket{');
      expect((await fetch(`http://127.0.0.1:${service!.port}/readyz`)).status).to.equal(200);
      // A traced request after them: once its span is exported, theirs would have been (one exporter, in order).
      const after = callerTrace();
      await fetch(`http://127.0.0.1:${service!.port}/v1/portfolio`, { headers: { traceparent: after.traceparent } });
      await until('the later request’s span', () => otlp.trace(after.traceId).length > 0);
      const paths = otlp.spans.filter((span: ReceivedSpan) => span.kind === 2).map((span) => span.attributes['url.path']);
      expect(paths).to.include('/v1/portfolio');
      expect(paths).to.not.include('/metrics');
      expect(paths).to.not.include('/readyz');
    });
    // Issue 35's acceptance in the same traced process: its metrics after the traced approval.
    it('counts the traced approval in /metrics, on METRICS_PORT only: promtool-clean, by route template, no raw id', async function () {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect((await fetch(`http://127.0.0.1:${service!.port}/metrics`)).status, '/metrics on the API port').to.equal(404);
      const value = (name: string, labels = '') =>
        text.split('\n').find((line) => line.startsWith(`${name}{${labels}`) || (!labels && line.startsWith(`${name} `)));
      const approvals = text
        .split('\n')
        .filter((line) => line.startsWith('http_server_request_duration_seconds_count{'))
        .filter((line) => line.includes('http_route="/v1/orders/{id}/approve"') && line.includes('channel="rest"'));
      expect(approvals, 'the approval by its route template').to.have.length.above(0);
      expect(text).to.not.include(orderId);
      expect(Number(value('ias_order_approvals_total', 'outcome="approved"')?.split(' ').pop())).to.be.at.least(1);
      expect(Number(value('ias_webhook_attempts_total', 'outcome="success"')?.split(' ').pop())).to.be.at.least(1);
      for (const family of ['ias_kill_switches_engaged', 'db_client_connections_usage', 'nodejs_eventloop_lag_p99_seconds'])
        expect(value(family), family).to.be.a('string');
      if (spawnSync('promtool', ['--version']).error) this.skip(); // .ci/run installs it (Debian's prometheus package)
      const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(checked.status, checked.stdout + checked.stderr).to.equal(0);
      expect(checked.stdout + checked.stderr).to.equal('');
    });
  });

  describe('http/protobuf', () => {
    it('exports protobuf to the endpoint, and on SIGTERM flushes the spans it still held before it exits', async function () {
      this.timeout(90_000);
      const otlp = await new OtlpReceiver().listen();
      // A batch delay longer than the test: the spans leave only when the drain flushes them.
      const service = await startServiceProcess({
        // The first process migrated the database: this one starts at once (the embedded database's start is slow).
        ...(database ? { DATABASE_URL: database.url } : {}),
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      });
      try {
        const caller = callerTrace();
        // Connection: close, so the drain has no idle connection to wait for.
        const answer = await fetch(`http://127.0.0.1:${service.port}/v1/portfolio`, {
          headers: { traceparent: caller.traceparent, connection: 'close' },
        });
        expect(((await answer.json()) as { trace_id?: string }).trace_id).to.equal(caller.traceId);
        expect(otlp.requests).to.deep.equal([]);
        expect(await service.terminate()).to.equal(0);
        expect(otlp.requests.length).to.be.greaterThan(0);
        for (const request of otlp.requests) expect(request).to.deep.equal({ path: '/v1/traces', contentType: 'application/x-protobuf' });
        const server = otlp.trace(caller.traceId).find((span) => span.kind === 2);
        expect(server).to.deep.include({ name: 'GET /v1/portfolio', parentSpanId: caller.spanId });
        expect(server!.attributes['http.route']).to.equal('/v1/portfolio');
      } finally {
        service.stop();
        await otlp.close();
      }
    });
  });
});
