import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import { claim, dispatch, prune, type Claimed } from '../services/webhooks/queue.js';
import { settle, type AttemptOutcome } from '../services/webhooks/settle.js';
import { sign } from '../services/webhooks/signing.js';
import { activeMetrics } from '../observability/metrics.js';
import { traceDelivery } from '../observability/tracing.js';
import { WebhookSender, type SendResult } from './sender.js';

export interface WebhookWorkerOptions {
  /** Delays before each retry after the first attempt (WEBHOOK_RETRY_SCHEDULE). */
  retryScheduleMs: number[];
  /** How often an idle worker looks for events and due deliveries. */
  pollMs: number;
  /** Attempts in flight at once on this instance. */
  concurrency: number;
  /** Attempts in flight at once per endpoint and per account, over every instance (queue.ts `claim`). */
  perEndpoint: number;
  perAccount: number;
  /** Events older than this are deleted (with their deliveries). */
  retentionMs: number;
  allowPrivateNetworks: boolean;
  sender?: WebhookSender;
}

const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** Events one turn fans out at most. */
const DISPATCH_BATCH = 1000;
/**
 * While there is work, turns come at most this often: each turn is a few statements whatever its batch holds, so pacing
 * them gathers a busy moment's events and finished attempts into a few batches instead of a turn for each, leaving the
 * database and the cores to the requests, for at most this much more lag: a turn at once after every finished attempt,
 * and much longer turns (whose bursts hurt as much), both raised the approvals' p99 (BENCHMARKS.md).
 */
export const BUSY_TURN_MS = 25;

/**
 * Sends the webhooks on this instance; every instance runs one. Each turn it fans new events out into deliveries
 * (one instance at a time does), claims due deliveries up to its free places and sends them; results are written
 * at the next turn (one transaction for all that finished meanwhile). Nothing here is held only in memory:
 * a stop, a crash or a restart loses nothing — what was not written as done is claimed again.
 */
export class WebhookWorker {
  private readonly sender: WebhookSender;
  private timer: NodeJS.Timeout | undefined;
  /** When the pending timer fires (performance.now()), while one is pending. */
  private dueAt: number | undefined;
  private running = false;
  private stopped = true;
  private turn: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<Promise<void>>();
  private outcomes: AttemptOutcome[] = [];
  private flushing: Promise<void> | undefined;
  private lastPrune = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly options: WebhookWorkerOptions,
    private readonly logger?: Logger,
    /** Told of each attempt (the metrics'; a thread's worker tells its parent, which records them: threaded.ts). */
    private readonly observe: (attempt: AttemptObserved) => void = recordAttempt,
  ) {
    this.sender = options.sender ?? new WebhookSender(options.allowPrivateNetworks);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops looking for work, lets the attempts in flight finish (10 s at most each) and writes their results. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.dueAt = undefined;
    await this.turn;
    await Promise.all(this.inFlight);
    await this.flush();
    this.sender.close();
  }

  /** The next turn comes within `delayMs`: a turn already due sooner stays as it is. */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const at = performance.now() + delayMs;
    if (this.dueAt !== undefined && this.dueAt <= at) return;
    clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => {
      this.dueAt = undefined;
      // One turn at a time, and `turn` is always the one running (stop() waits for it).
      if (!this.running) this.turn = this.work();
    }, delayMs);
    this.timer.unref();
  }

  private async work(): Promise<void> {
    if (this.stopped) return;
    this.running = true;
    let busy = false;
    try {
      // The results that came in since the last turn, in one transaction.
      await this.flush();
      const now = this.clock.now();
      const free = this.options.concurrency - this.inFlight.size;
      // The fan-out writes new deliveries; the claim takes due ones, fairly: no endpoint and no account beyond its
      // share of attempts in flight, the accounts taking turns (one tenant's slow endpoints never fill every place).
      const dispatched = await dispatch(this.db, now, 0, DISPATCH_BATCH);
      const claimed = await claim(this.db, now, free, { perEndpoint: this.options.perEndpoint, perAccount: this.options.perAccount });
      for (const delivery of claimed) {
        this.attempt(delivery);
        // Requests waiting on this process go first between two sends: a batch never holds them up as a block.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      // Busy while there are deliveries to make or results to write, or a full batch of events left more behind.
      // Events that no endpoint wants (most, on a service whose accounts mostly have none) only move the dispatcher's
      // position: the next poll does that, instead of a turn every BUSY_TURN_MS for them (which cost every approval
      // CPU on a service without endpoints).
      busy =
        dispatched.deliveries > 0 ||
        dispatched.events >= DISPATCH_BATCH ||
        (free > 0 && claimed.length === free) ||
        this.outcomes.length > 0;
      if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
        this.lastPrune = Date.now();
        const removed = await prune(this.db, new Date(now.getTime() - this.options.retentionMs));
        if (removed > 0) this.logger?.info({ removed }, 'pruned events past their retention');
      }
    } catch (error) {
      this.logger?.warn({ err: error }, 'webhook worker turn failed; trying again');
    } finally {
      this.running = false;
      this.schedule(busy ? Math.min(BUSY_TURN_MS, this.options.pollMs) : this.options.pollMs);
    }
  }

  private attempt(delivery: Claimed): void {
    const at = this.clock.now();
    const body = `{"type":${JSON.stringify(delivery.type)},"timestamp":${JSON.stringify(new Date(delivery.created_at).toISOString())},"data":${delivery.data}}`;
    const secrets = [delivery.secret];
    if (delivery.previous_secret && delivery.previous_secret_expires_at && new Date(delivery.previous_secret_expires_at) > at)
      secrets.push(delivery.previous_secret);
    const headers = sign(secrets, delivery.event_id, Math.floor(at.getTime() / 1000), body);
    // In the trace that caused the event (docs/tracing.md), and its traceparent sent on: the receiver's spans join it.
    const traced = {
      'ias.webhook.event_id': delivery.event_id,
      'ias.webhook.delivery_id': delivery.id,
      'ias.webhook.endpoint_id': delivery.endpoint_id,
      'ias.webhook.attempt': delivery.attempt,
    };
    const sending = traceDelivery(delivery.type, delivery.traceparent, traced, (traceparent) =>
      this.sender.send(delivery.url, traceparent ? { ...headers, traceparent } : { ...headers }, body),
    ).then((result) => {
      this.outcomes.push({ delivery, at, ...result });
      this.observe(observed(result, delivery, this.clock.now()));
      this.inFlight.delete(sending);
      // The next turn writes the result, and fills the place that came free without waiting for the next poll.
      this.schedule(Math.min(BUSY_TURN_MS, this.options.pollMs));
    });
    this.inFlight.add(sending);
  }

  /**
   * Writes every result that came in, one transaction at a time (results arriving meanwhile go in the next), and
   * resolves once nothing is waiting to be written or being written: stop() relies on it.
   */
  private async flush(): Promise<void> {
    while (this.flushing || this.outcomes.length > 0) {
      if (this.flushing) {
        await this.flushing;
        continue;
      }
      const batch = this.outcomes;
      this.outcomes = [];
      this.flushing = settle(this.db, batch, this.options.retryScheduleMs, this.clock.now())
        .catch((error: unknown) => {
          // Unwritten results are retried when their lease ends: at-least-once, never lost.
          this.logger?.warn({ err: error, deliveries: batch.length }, 'could not record webhook attempts; they will be retried');
        })
        .finally(() => {
          this.flushing = undefined;
        });
    }
  }
}

/** What the metrics count of one attempt: its outcome, and for a success how long after its event it arrived. */
export interface AttemptObserved {
  outcome: 'success' | 'failure' | 'timeout' | 'error';
  lagSeconds?: number;
}

function observed(result: SendResult, delivery: Claimed, now: Date): AttemptObserved {
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300)
    return { outcome: 'success', lagSeconds: Math.max(0, (now.getTime() - new Date(delivery.created_at).getTime()) / 1000) };
  return { outcome: result.statusCode !== null ? 'failure' : result.timedOut ? 'timeout' : 'error' };
}

/** Records an attempt in this thread's metrics (when it records any). */
export function recordAttempt(attempt: AttemptObserved): void {
  const metrics = activeMetrics();
  if (!metrics) return;
  metrics.webhookAttempts.inc({ outcome: attempt.outcome });
  if (attempt.lagSeconds !== undefined) metrics.webhookLag.observe(attempt.lagSeconds);
}
