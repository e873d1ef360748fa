import type { EventEmitter } from 'node:events';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';

/**
 * OpenTelemetry traces (issue 35, docs/tracing.md), as the service's code sees them: only OpenTelemetry's API, which
 * does nothing until an SDK is registered. The SDK is started by `tracing-sdk.ts`, loaded only when the OTEL_*
 * variables ask for traces (main.ts); until then `tracingOn()` is false and every function here returns at once.
 */
export interface TracingHooks {
  /** Flushes the spans still buffered and stops exporting. */
  stop(): Promise<void>;
}

let hooks: TracingHooks | undefined;
let tracer: Tracer | undefined;

/** The SDK is running (tracing-sdk.ts): from now on the pipeline's steps are spans and requests know their trace. */
export function tracingStarted(started: TracingHooks): void {
  hooks = started;
  tracer = trace.getTracer('investment-automation-service');
}

export const tracingOn = (): boolean => hooks !== undefined;

/** How long a stop waits for the last spans to be exported: a collector that does not answer never holds a drain. */
const STOP_WAIT_MS = 5000;

/** Flushes and stops the SDK (after a drain), waiting at most STOP_WAIT_MS; nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const stopping = hooks;
  hooks = tracer = undefined;
  if (!stopping) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([stopping.stop().catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))]);
  clearTimeout(timer);
}

/** What a server span reads of an incoming request (node:http's, without this layer knowing HTTP's modules). */
type IncomingRequest = EventEmitter & { url?: string; method?: string; headers: Record<string, string | string[] | undefined> };

/** Requests a load balancer or a scraper sends all day: never traced. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** A request's server span while it is answered; `traceId` is its trace's (or the caller's, when it is not sampled). */
export interface ServerTrace {
  traceId: string | undefined;
  /** Whether the request is sampled: only then is there a span to end (and a route worth naming). */
  recording: boolean;
  /** Runs the rest of the request in the span's context (only a sampled span has one; else `next()` as it is). */
  run(req: EventEmitter, res: EventEmitter, next: () => void): void;
  /** Ends the span, named by its route template (`GET /v1/orders/{id}`, never a raw path), with the answer's status. */
  end(route: string | undefined, status: number, completed: boolean): void;
}

const UNTRACED: ServerTrace = { traceId: undefined, recording: false, run: (_req, _res, next) => next(), end: () => {} };

/**
 * The server span of an incoming request, continuing the caller's W3C `traceparent` (the SDK's sampler decides:
 * parent-based unless OTEL_TRACES_SAMPLER says otherwise). Made here rather than by the HTTP instrumentation, which
 * enters a context for every request, sampled or not, and so keeps Node's async hooks running on every promise of
 * every request: measured, the read kept 55 % of its throughput with it and nothing sampled (BENCHMARKS.md). A request
 * that is not sampled costs a header lookup and a span that records nothing; only a sampled one enters a context.
 */
export function startServerTrace(req: IncomingRequest): ServerTrace {
  if (!tracer || UNTRACED_PATHS.has((req.url ?? '/').split('?')[0]!)) return UNTRACED;
  const parent = req.headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, req.headers);
  const method = req.method ?? 'GET';
  const span = tracer.startSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': (req.url ?? '/').split('?')[0] } },
    parent,
  );
  if (!span.isRecording()) {
    const caller = trace.getSpanContext(parent);
    return caller && trace.isSpanContextValid(caller) ? { ...UNTRACED, traceId: caller.traceId } : UNTRACED;
  }
  const active = trace.setSpan(parent, span);
  return {
    traceId: span.spanContext().traceId,
    recording: true,
    run(req, res, next) {
      // The request's and answer's events (its body arriving, its end) run in the span's context too.
      context.bind(active, req);
      context.bind(active, res);
      context.with(active, next);
    },
    end(route, status, completed) {
      if (route) {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', status);
      if (status >= 500 || !completed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

/** The trace the current code runs in (32 hex digits), or undefined without tracing. */
export function currentTraceId(): string | undefined {
  if (!hooks) return undefined;
  const span = trace.getSpanContext(context.active());
  return span && trace.isSpanContextValid(span) ? span.traceId : undefined;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const traceparentOf = (span: SpanContext) => `00-${span.traceId}-${span.spanId}-${span.traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;

/** The W3C `traceparent` of the current span (what an outbox event keeps for its webhooks), or null without one. */
export function currentTraceparent(): string | null {
  if (!hooks) return null;
  const span = trace.getSpanContext(context.active());
  if (!span || !trace.isSpanContextValid(span)) return null;
  return traceparentOf(span);
}

/**
 * One webhook delivery attempt of an event recorded with `traceparent` (null: not traced): with tracing on, a client
 * span `webhook <type>` in the trace that caused the event, child of the span that recorded it; `send` gets the
 * traceparent to send (that span's, else the stored one as it is, so the receiver joins the trace either way) and
 * answers the attempt's status code (null: no answer).
 */
export async function traceDelivery<R extends { statusCode: number | null }>(
  type: string,
  traceparent: string | null,
  attributes: Attributes,
  send: (traceparent: string | undefined) => Promise<R>,
): Promise<R> {
  const parts = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!parts) return send(undefined);
  if (!tracer) return send(traceparent!);
  const parent = trace.setSpanContext(ROOT_CONTEXT, { traceId: parts[1]!, spanId: parts[2]!, traceFlags: parseInt(parts[3]!, 16) });
  const span = tracer.startSpan(
    `webhook ${type}`,
    { kind: SpanKind.CLIENT, attributes: { 'http.request.method': 'POST', ...attributes } },
    parent,
  );
  try {
    const result = await context.with(trace.setSpan(parent, span), () => send(traceparentOf(span.spanContext())));
    if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
    if (result.statusCode === null || result.statusCode >= 300) span.setStatus({ code: SpanStatusCode.ERROR });
    return result;
  } finally {
    span.end();
  }
}

/** What a step's failure says of it: the problem type when it refused the caller (a 4xx answer), else undefined. */
export type RefusalOf = (error: unknown) => string | undefined;

function failed(span: Span, error: unknown, refusal: RefusalOf | undefined): void {
  // A refusal the caller can act on is the step's answer (`ias.problem`), not its failure.
  const slug = refusal?.(error);
  if (slug !== undefined) {
    span.setAttribute('ias.problem', slug);
    return;
  }
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** What a step is done for: an operation (or a dashboard action) and the channel it came by. */
export interface StepOf {
  operationId: string;
  channel?: string;
}

/**
 * One step of the pipeline (authorize, validate, idempotency, a use case) as a span `<kind> <operationId>`, active
 * while `run` runs (the queries it makes are its children). Without tracing, or in a request that is not sampled, it is
 * `run()`, nothing built.
 */
export function step<T>(kind: string, of: StepOf, run: () => T, refusal?: RefusalOf): T {
  // Outside a sampled request nothing is recorded, and no context is entered (which would start Node's async hooks).
  if (!tracer || !trace.getActiveSpan()?.isRecording()) return run();
  const attributes: Attributes = { 'ias.operation_id': of.operationId };
  if (of.channel) attributes['ias.channel'] = of.channel;
  return tracer.startActiveSpan(`${kind} ${of.operationId}`, { attributes }, (span) => {
    let result: T;
    try {
      result = run();
    } catch (error) {
      failed(span, error, refusal);
      span.end();
      throw error;
    }
    if (!(result instanceof Promise)) {
      span.end();
      return result;
    }
    return result.then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        failed(span, error, refusal);
        span.end();
        throw error;
      },
    ) as T;
  });
}
