import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { ProblemError } from '../problems.js';
import type { Services } from '../services/index.js';
import type { Queryable } from '../services/store.js';
import type { Reply } from './reply.js';

/** Who sent a keyed request, to which operation, with which key, and a fingerprint of what it asked. */
export interface KeyedRequest {
  accountId: string;
  clientId: string;
  operationId: string;
  key: string;
  fingerprint: string;
}

/** The headers a replay repeats (the rest describe the transport or this particular answer). */
const REPLAYED_HEADERS = new Set(['location', 'etag', 'cache-control', 'retry-after', 'www-authenticate']);

/** A sweep of expired keys runs at most this often, on the back of a stored answer (no timer, no outside cron). */
const SWEEP_EVERY_MS = 60_000;

/** Rolls the whole keyed transaction back while carrying the answer that must not be stored (5xx, 429). */
class NotStored extends Error {
  constructor(readonly reply: Reply) {
    super('answer not stored');
  }
}

/** Answers a retry should run again rather than see replayed: the server failed (5xx) or the caller was throttled (429). */
export const transientStatus = (reply: { status: number }): boolean => reply.status >= 500 || reply.status === 429;

/** Canonical JSON: object members sorted at every depth, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
export function canonicalJson(value: unknown): string {
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
export function fingerprint(method: string, path: string, body: unknown): string {
  // No body and `{}` are the same request (approve, reject and cancel take either).
  const empty = body === undefined || (body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${empty ? '' : canonicalJson(body)}`).digest('base64url');
}

/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header, with Stripe's semantics). A keyed request runs in one
 * transaction that also holds an advisory lock on its key: a concurrent request with the same key — on this
 * instance or another — finds the lock taken and gets 409 at once; the request's effect runs in a savepoint and
 * its answer is stored in the same transaction, so the effect and the stored answer commit together or not at
 * all. Final answers (2xx and 4xx) are stored and replayed with `Idempotent-Replayed: true`; 5xx and 429 are not
 * stored (their effect is rolled back and a retry runs again).
 */
export class IdempotencyKeys {
  private lastSweep = 0;

  constructor(
    private readonly services: Services,
    private readonly retentionMs: number,
  ) {}

  /**
   * Runs `work` once per key: `failure` turns what it throws into the answer, `refused` tells an answer whose
   * effect must be rolled back although nothing was thrown (a GraphQL result with errors), and `transient` one that
   * must not be stored at all (5xx and 429, or a GraphQL result carrying such an error under HTTP 200).
   */
  async run(
    request: KeyedRequest,
    work: (services: Services) => Promise<Reply>,
    failure: (error: unknown) => Reply,
    refused: (reply: Reply) => boolean = (reply) => reply.status >= 400,
    transient: (reply: Reply) => boolean = transientStatus,
  ): Promise<Reply> {
    try {
      return await this.services.transaction(async (services, store) => {
        const trx = store.db;
        await this.lock(trx, request);
        const now = new Date();
        const earlier = await this.stored(trx, request, now);
        if (earlier) return earlier;
        await sql`savepoint idempotent_effect`.execute(trx);
        let reply: Reply;
        try {
          reply = await work(services);
        } catch (error) {
          reply = failure(error);
        }
        if (refused(reply)) await sql`rollback to savepoint idempotent_effect`.execute(trx);
        if (transient(reply)) throw new NotStored(reply);
        await this.record(trx, request, reply, now);
        store.onCommit(() => this.sweep());
        return reply;
      });
    } catch (error) {
      if (error instanceof NotStored) return error.reply;
      throw error;
    }
  }

  /**
   * A keyed request whose operation stores nothing (a computation: goal feasibility), which may take a while on the
   * compute pool: it runs before the key's transaction, so that no database connection waits for it, and its answer
   * is stored after. A replay answers at once; two requests with one key that run together both compute, and the one
   * that stores second answers what the first stored (the same computation's answer, as a replay).
   */
  async runComputation(request: KeyedRequest, work: () => Promise<Reply>, failure: (error: unknown) => Reply): Promise<Reply> {
    const earlier = await this.services.transaction((_, store) => this.stored(store.db, request, new Date()));
    if (earlier) return earlier;
    let reply: Reply;
    try {
      reply = await work();
    } catch (error) {
      reply = failure(error);
    }
    if (transientStatus(reply)) return reply;
    return this.services.transaction(async (_, store) => {
      const now = new Date();
      await this.lock(store.db, request);
      const first = await this.stored(store.db, request, now);
      if (first) return first;
      await this.record(store.db, request, reply, now);
      store.onCommit(() => this.sweep());
      return reply;
    });
  }

  /** The key's advisory lock for the transaction, or 409 idempotency-key-in-use when another request holds it. */
  private async lock(trx: Queryable, request: KeyedRequest): Promise<void> {
    const lockKey = `idempotency ${request.accountId} ${request.clientId} ${request.operationId} ${request.key}`;
    const locked = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${lockKey}, 0)) as locked`.execute(trx);
    if (!locked.rows[0]?.locked) {
      throw new ProblemError('idempotency-key-in-use', `A request with Idempotency-Key "${request.key}" is still running; retry once it has finished.`, {}, { 'Retry-After': '1' });
    }
  }

  /** The stored answer under the key, as a replay; 422 idempotency-key-reused when it answered another request. */
  private async stored(trx: Queryable, request: KeyedRequest, now: Date): Promise<Reply | undefined> {
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
      throw new ProblemError('idempotency-key-reused', `Idempotency-Key "${request.key}" was already used with a different request (method, path or body); use a new key for a new request.`);
    }
    const headers = JSON.parse(stored.headers) as Record<string, string>;
    return { status: stored.status, body: stored.body === null ? undefined : (JSON.parse(stored.body) as unknown), contentType: stored.content_type, headers: { ...headers, 'Idempotent-Replayed': 'true' } };
  }

  /** Stores the answer under the key; an expired row with the same key is replaced (after its retention a key is new again). */
  private async record(trx: Queryable, request: KeyedRequest, reply: Reply, now: Date): Promise<void> {
    const headers = Object.fromEntries(Object.entries(reply.headers ?? {}).filter(([name]) => REPLAYED_HEADERS.has(name.toLowerCase())));
    const row = {
      account_id: request.accountId,
      client_id: request.clientId,
      operation_id: request.operationId,
      key: request.key,
      fingerprint: request.fingerprint,
      status: reply.status,
      headers: JSON.stringify(headers),
      body: reply.body === undefined ? null : JSON.stringify(reply.body),
      content_type: reply.contentType ?? 'application/json',
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
  private sweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.services
      .transaction((_, store) => store.db.deleteFrom('idempotency_keys').where('expires_at', '<=', new Date()).execute())
      .catch(() => {
        this.lastSweep = 0;
      });
  }
}
