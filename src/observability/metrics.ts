import client from 'prom-client';

/**
 * What an operator sees of the service (issue 35): Prometheus metrics with prom-client, served apart from the API on
 * METRICS_PORT (metrics-server.ts). Off unless started (`startMetrics`): every recording point asks `activeMetrics()`
 * and does nothing when it answers undefined, so a service without METRICS_PORT pays one property read per point.
 * Label values are bounded by construction: route templates from the contract (never a path), status classes,
 * problem slugs and check names the spec declares, channels, limit names — never an account, client, order or
 * endpoint id. Names follow OpenTelemetry's semantic conventions where they exist (`http.server.request.duration` as
 * `http_server_request_duration_seconds`, `db.client.connections.*`), `ias_` for the service's own.
 */
export type Channel = 'rest' | 'graphql' | 'mcp' | 'dashboard' | 'other';

/** OpenTelemetry's advice for HTTP durations, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const LAG_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21_600, 86_400];
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** What a gauge reads when Prometheus scrapes (a query, a pool's counts); registered by whoever owns the thing. */
export type Sample = () =>
  Promise<{ labels?: Record<string, string>; value: number }[]> | { labels?: Record<string, string>; value: number }[];

export class Metrics {
  readonly registry = new client.Registry();
  private readonly samples = new Map<string, Sample[]>();
  private readonly http = new client.Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests, by method, route template, status class and channel.',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_class', 'channel'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  /** One child per label set, kept: prom-client would hash the labels on every observation otherwise. */
  private readonly httpChildren = new Map<string, { observe(seconds: number): void }>();
  readonly approvals = this.counter(
    'ias_order_approvals_total',
    'Order approvals by outcome (approved, or the problem type that refused it).',
    ['outcome'],
  );
  readonly blocks = this.counter('ias_order_blocked_checks_total', 'Failed checks of blocked approvals, by check.', ['check']);
  readonly previews = this.counter('ias_order_previews_total', 'Approval previews by what they said the approval would do.', ['decision']);
  readonly transitions = this.counter('ias_order_transitions_total', 'Order state transitions, by from and to state.', ['from', 'to']);
  readonly replays = this.counter('ias_idempotent_replays_total', 'Answers replayed from an Idempotency-Key, by channel.', ['channel']);
  readonly refusals = this.counter('ias_rate_limit_refusals_total', 'Requests refused 429 by a limit or quota, by its policy name.', [
    'policy',
  ]);
  readonly refusalsHeld = this.counter(
    'ias_rate_limit_refusals_held_total',
    "Refusals (429) held for their client address's turn before being answered: it kept sending past a limit.",
    [],
  );
  readonly events = this.counter('ias_events_recorded_total', 'Events recorded for the feed and webhooks, by type.', ['type']);
  readonly webhookAttempts = this.counter('ias_webhook_attempts_total', 'Webhook delivery attempts, by outcome.', ['outcome']);
  readonly webhookLag = new client.Histogram({
    name: 'ias_webhook_delivery_lag_seconds',
    help: 'Time from an event being recorded to its webhook delivery succeeding.',
    buckets: LAG_BUCKETS,
    registers: [this.registry],
  });
  readonly poolWait = new client.Histogram({
    name: 'db_client_connection_wait_time_seconds',
    help: 'Time a request waited for a connection of the PostgreSQL pool.',
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry });
    // Gauges whose names end in _total, which promtool refuses (a counter's suffix); the same counts are in
    // nodejs_active_handles and nodejs_active_requests by type.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      this.registry.removeSingleMetric(name);
    this.gauge('db_client_connections_usage', 'Connections of the PostgreSQL pool, by state (idle, used).', ['state']);
    this.gauge('db_client_connection_pending_requests', 'Requests waiting for a connection of the PostgreSQL pool.');
    this.gauge(
      'ias_rate_limit_store_breaker_open',
      'Whether the Redis store of the rate limits is skipped after failures (1) or used (0).',
    );
    this.gauge('ias_compute_queue_length', 'Heavy computations waiting for a thread of the compute pool.');
    this.gauge('ias_kill_switches_engaged', 'Kill switches engaged, by level (global, account).', ['level'], 'first');
    this.gauge('ias_webhook_deliveries_pending', 'Webhook deliveries waiting for an attempt or a retry.', [], 'first');
    this.gauge('ias_outbox_events_undispatched', 'Events recorded and not yet turned into webhook deliveries.', [], 'first');
  }

  /** An HTTP request answered: its duration by method, route template (or `unmatched`), status class and channel. */
  request(channel: Channel, method: string, route: string | undefined, status: number, seconds: number): void {
    const verb = KNOWN_METHODS.has(method) ? method : '_OTHER';
    const key = `${channel} ${verb} ${route} ${status}`;
    let child = this.httpChildren.get(key);
    if (!child) {
      child = this.http.labels(verb, route ?? 'unmatched', `${Math.floor(status / 100)}xx`, channel);
      // Bounded anyway (templates × methods × classes); the cap keeps a bug from growing it.
      if (this.httpChildren.size < 10_000) this.httpChildren.set(key, child);
    }
    child.observe(seconds);
  }

  /**
   * Adds what a gauge reads at each scrape (several owners may add to one gauge: their samples add up); answers the
   * function that takes it away.
   */
  sample(name: string, read: Sample): () => void {
    const list = this.samples.get(name);
    if (!list) throw new Error(`no gauge ${name}`);
    list.push(read);
    return () => {
      const at = list.indexOf(read);
      if (at >= 0) list.splice(at, 1);
    };
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]) {
    return new client.Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /**
   * A gauge read at scrape time from its samples. `aggregator` says how a cluster's primary combines its workers'
   * values: `sum` for what each process holds (its pool), `first` for what the database says (every worker reads the
   * same).
   */
  private gauge(name: string, help: string, labelNames: string[] = [], aggregator: 'sum' | 'first' = 'sum'): void {
    const reads: Sample[] = [];
    this.samples.set(name, reads);
    new client.Gauge({
      name,
      help,
      labelNames,
      aggregator,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const read of reads) {
          for (const { labels, value } of await read()) {
            if (labels) this.inc(labels, value);
            else this.inc(value);
          }
        }
      },
    });
  }
}

let active: Metrics | undefined;

/** Starts recording (once per process; METRICS_PORT set): the metrics every recording point then writes to. */
export function startMetrics(): Metrics {
  return (active ??= new Metrics());
}

/** The metrics being recorded, or undefined when this process records none. */
export function activeMetrics(): Metrics | undefined {
  return active;
}

/** Transactions that are not the service's work (the start's rehearsal, rolled back: services/orders/rehearsal.ts). */
const uncounted = new WeakSet<object>();

/** What is written in `trx` counts nowhere: the transaction rolls back, so nothing it did has happened. */
export function leaveUncounted(trx: object): void {
  uncounted.add(trx);
}

/** The metrics that work done on `db` (a transaction, or the pool) is recorded to: none in an uncounted transaction. */
export function metricsFor(db: object): Metrics | undefined {
  return active && !uncounted.has(db) ? active : undefined;
}

/** Tests only: stop recording. */
export function stopMetrics(): void {
  active = undefined;
}
