import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { systemClock, type Clock } from '../clock.js';
import type { ContractOperation } from '../contract/operations.js';
import { ProblemError } from '../problems.js';
import type { Services } from '../services/index.js';
import type { Queryable } from '../services/store.js';

/**
 * What a channel answers for a call, in the form a key stores and replays: REST's status, headers and body; GraphQL's
 * field result; MCP's tool result. `status` is the outcome's (a problem's own for a failure, whatever the channel).
 */
export interface Answer {
  status: number;
  body?: unknown;
  /** The body as the JSON text the channel writes, when it serialised it already (a key stores that text). */
  text?: string;
  headers?: Record<string, string>;
  contentType?: string;
}

/** An answer, and whether it is the replay of an earlier call's with the same key. */
export interface Answered {
  answer: Answer;
  replayed: boolean;
}

/** Who sent a keyed call, to which operation (through which channel), with which key, and a fingerprint of what it asked. */
export interface KeyedRequest {
  accountId: string;
  clientId: string;
  /** The key's scope: the operationId over REST, `graphql:` or `mcp:` and the operationId over the others. */
  operationId: string;
  key: string;
  fingerprint: string;
}

/** The headers a replay repeats (the rest describe the transport or this particular answer). */
const REPLAYED_HEADERS = new Set(['location', 'etag', 'cache-control', 'retry-after', 'www-authenticate']);

/** A sweep of expired keys runs at most this often, on the back of a stored answer (no timer, no outside cron). */
const SWEEP_EVERY_MS = 60_000;

/** Answers a retry should run again rather than see replayed: the server failed (5xx) or the caller was throttled (429). */
const transientStatus = (answer: { status: number }): boolean => answer.status >= 500 || answer.status === 429;

/** Canonical JSON: object members sorted at every depth, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The request fingerprint: method, path (with its ids) and the canonical body. */
function fingerprint(method: string, path: string, body: unknown): string {
  // No body and `{}` are the same request (approve, reject and cancel take either).
  const empty = body === undefined || (body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${empty ? '' : canonicalJson(body)}`)
    .digest('base64url');
}

/** The fingerprint of a call on any channel: its operation's method and path with the call's ids, and its body. */
export function fingerprintOf(operation: ContractOperation, path: Record<string, unknown>, body: unknown): string {
  return fingerprint(
    operation.method,
    operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => String(path[name])),
    body,
  );
}

/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header, with Stripe's semantics), for every channel. A keyed
 * call runs in one transaction that also holds an advisory lock on its key: a concurrent call with the same key — on
 * this instance or another — finds the lock taken and gets 409 at once. The key never changes what the call does:
 * its use case runs as it would without a key (each of its own transactions a savepoint, kept or rolled back as it
 * would be committed or rolled back alone), and whatever the use case chose to keep stays — a blocked order and its
 * event, an automatic kill switch — refusal or not. The key only adds the stored answer, committed with the effect:
 * final answers (2xx and 4xx) are stored and replayed; 5xx and 429 are not (their effect, if any, stays, as without a
 * key, and a retry runs again).
 */
export class IdempotencyKeys {
  private lastSweep = 0;

  /** `clock` is the one keys expire by (a test's own; the system's otherwise). */
  constructor(
    private readonly retentionMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Runs `work` once per key with every use case bound to the key's transaction; `work` never throws (it answers). */
  async run(services: Services, request: KeyedRequest, work: (bound: Services) => Promise<Answer>): Promise<Answered> {
    return services.transaction(async (bound, store) => {
      const trx = store.db;
      await this.lock(trx, request);
      const now = this.clock.now();
      const earlier = await this.stored(trx, request, now);
      if (earlier) return { answer: earlier, replayed: true };
      // A statement the use case ran outside a transaction of its own that failed leaves the whole transaction unusable;
      // this savepoint lets the answer be stored anyway (as without a key, that statement's work did not happen).
      await sql`savepoint idempotent_effect`.execute(trx);
      const answer = await work(bound);
      await sql`release savepoint idempotent_effect`.execute(trx).catch(() => sql`rollback to savepoint idempotent_effect`.execute(trx));
      if (transientStatus(answer)) return { answer, replayed: false };
      await this.record(trx, request, answer, now);
      store.onCommit(() => this.sweep(services));
      return { answer, replayed: false };
    });
  }

  /**
   * A keyed call whose operation stores nothing (a computation: goal feasibility), which may take a while on the
   * compute pool: it runs before the key's transaction, so that no database connection waits for it, and its answer
   * is stored after. A replay answers at once; two calls with one key that run together both compute, and the one
   * that stores second answers what the first stored (the same computation's answer, as a replay).
   */
  async runComputation(services: Services, request: KeyedRequest, work: () => Promise<Answer>): Promise<Answered> {
    const earlier = await services.transaction((_, store) => this.stored(store.db, request, this.clock.now()));
    if (earlier) return { answer: earlier, replayed: true };
    const answer = await work();
    if (transientStatus(answer)) return { answer, replayed: false };
    return services.transaction(async (_, store) => {
      const now = this.clock.now();
      await this.lock(store.db, request);
      const first = await this.stored(store.db, request, now);
      if (first) return { answer: first, replayed: true };
      await this.record(store.db, request, answer, now);
      store.onCommit(() => this.sweep(services));
      return { answer, replayed: false };
    });
  }

  /** The key's advisory lock for the transaction, or 409 idempotency-key-in-use when another call holds it. */
  private async lock(trx: Queryable, request: KeyedRequest): Promise<void> {
    const lockKey = `idempotency ${request.accountId} ${request.clientId} ${request.operationId} ${request.key}`;
    const locked = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${lockKey}, 0)) as locked`.execute(trx);
    if (!locked.rows[0]?.locked) {
      throw new ProblemError(
        'idempotency-key-in-use',
        `A request with Idempotency-Key "${request.key}" is still running; retry once it has finished.`,
        {},
        1000,
      );
    }
  }

  /** The stored answer under the key; 422 idempotency-key-reused when it answered another request. */
  private async stored(trx: Queryable, request: KeyedRequest, now: Date): Promise<Answer | undefined> {
    const stored = await trx
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', request.accountId)
      .where('client_id', '=', request.clientId)
      .where('operation_id', '=', request.operationId)
      .where('key', '=', request.key)
      .executeTakeFirst();
    if (!stored || stored.expires_at <= now) return undefined;
    if (stored.fingerprint !== request.fingerprint) {
      throw new ProblemError(
        'idempotency-key-reused',
        `Idempotency-Key "${request.key}" was already used with a different request (method, path or body); use a new key for a new request.`,
      );
    }
    const headers = JSON.parse(stored.headers) as Record<string, string>;
    return {
      status: stored.status,
      body: stored.body === null ? undefined : (JSON.parse(stored.body) as unknown),
      contentType: stored.content_type,
      headers,
    };
  }

  /** Stores the answer under the key; an expired row with the same key is replaced (after its retention a key is new again). */
  private async record(trx: Queryable, request: KeyedRequest, answer: Answer, now: Date): Promise<void> {
    const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).filter(([name]) => REPLAYED_HEADERS.has(name.toLowerCase())));
    const row = {
      account_id: request.accountId,
      client_id: request.clientId,
      operation_id: request.operationId,
      key: request.key,
      fingerprint: request.fingerprint,
      status: answer.status,
      headers: JSON.stringify(headers),
      body: answer.body === undefined ? null : (answer.text ?? JSON.stringify(answer.body)),
      content_type: answer.contentType ?? 'application/json',
      created_at: now,
      expires_at: new Date(now.getTime() + this.retentionMs),
    };
    await trx
      .insertInto('idempotency_keys')
      .values(row)
      .onConflict((oc) => oc.columns(['account_id', 'client_id', 'operation_id', 'key']).doUpdateSet(row))
      .execute();
  }

  /** Deletes expired keys, at most once a minute per process; a failure is retried at the next one. */
  private sweep(services: Services): void {
    const now = this.clock.now();
    if (now.getTime() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now.getTime();
    services
      .transaction((_, store) => store.db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute())
      .catch(() => {
        this.lastSweep = 0;
      });
  }
}
