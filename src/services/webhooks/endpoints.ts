import type { Selectable, Updateable } from 'kysely';
import type { WebhookEndpointsTable } from '../../../db/tables/events.js';
import { checkAccountLimit } from '../account-limits.js';
import { normalizeEmail } from '../../auth/passwords.js';
import type { Clock } from '../../clock.js';
import { newId } from '../../ids.js';
import { ProblemError } from '../../problems.js';
import { invalidField, InvalidInputError, NotFoundError } from '../errors.js';
import { EVENT_TYPES, isEventType } from '../events/outbox.js';
import { keysetPage, type Page, type PageRequest } from '../pagination.js';
import type { Queryable, Store } from '../store.js';
import { attemptsPage, deliveryLog, queueTest, recoverFailed, retryDelivery } from './deliveries.js';
import { checkEndpointUrl, RefusedDestinationError } from './destinations.js';
import { newSigningSecret } from './signing.js';
import {
  view,
  type AttemptView,
  type DeliveryView,
  type EndpointChanges,
  type EndpointDeleted,
  type EndpointView,
  type EndpointWithSecret,
  type NewEndpoint,
  type Recovery,
  type TestDelivery,
} from './views.js';

/** How long the previous secret keeps signing after a rotation, so receivers can switch without losing a delivery. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const MAX_DESCRIPTION = 500;
const DAY_MS = 86_400_000;
const BY_HAND = 'disabled by hand';

/** Which endpoints a caller may touch: an account's own (its API clients, its signed-in human), or (an operator at the CLI) any. */
export type Owner = { accountId: string } | 'operator';

/** The rules endpoints are held to: where deliveries may go, and how far back recovery reaches (the events' retention). */
export interface WebhookRules {
  allowPrivateNetworks: boolean;
  retentionDays: number;
}

/**
 * Webhook endpoints and their deliveries, for every channel of an account (REST, GraphQL, MCP, the dashboard) and the
 * operator's CLI. Secrets are shown when made (creation, rotation) and kept to sign deliveries. Bound to a store, so a
 * keyed call's effect commits with its Idempotency-Key.
 */
export class WebhookEndpoints {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly rules: WebhookRules,
  ) {}

  private get db(): Queryable {
    return this.store.db;
  }

  /** A new endpoint with its secret; at most ACCOUNT_LIMITS.webhookEndpoints per account, however many ask at once. */
  async create(accountId: string, input: NewEndpoint): Promise<EndpointWithSecret> {
    const url = this.checkUrl(input.url);
    const description = checkDescription(input.description ?? '');
    const types = checkTypes(input.eventTypes);
    return this.store.transaction(async (trx) => {
      // The account's creations one at a time, so that two cannot pass the limit together. NO KEY UPDATE does not wait
      // for the key-share locks that the account's other writes take through their foreign keys.
      await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forNoKeyUpdate().execute();
      const held = await trx
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      checkAccountLimit('webhookEndpoints', Number(held.n));
      const now = this.clock.now();
      const secret = newSigningSecret();
      const enabled = input.enabled ?? true;
      const row = await trx
        .insertInto('webhook_endpoints')
        .values({
          id: newId('we'),
          account_id: accountId,
          url,
          description,
          event_types: JSON.stringify(types),
          secret,
          enabled,
          disabled_reason: enabled ? null : BY_HAND,
          disabled_at: enabled ? null : now,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ...view(row, now), secret };
    });
  }

  /** Every endpoint of the owner, oldest first (the operator CLI's list; an account holds at most 16). */
  async list(owner: Owner): Promise<EndpointView[]> {
    let query = this.db.selectFrom('webhook_endpoints').selectAll().orderBy('id');
    if (owner !== 'operator') query = query.where('account_id', '=', owner.accountId);
    const now = this.clock.now();
    return (await query.execute()).map((row) => view(row, now));
  }

  /** A page of the account's endpoints, newest first. */
  async page(owner: { accountId: string }, request: PageRequest): Promise<Page<EndpointView>> {
    const query = this.db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', owner.accountId);
    const page = await keysetPage(query, 'id', 'string', request);
    const now = this.clock.now();
    return { data: page.data.map((row) => view(row, now)), next_cursor: page.next_cursor };
  }

  async get(owner: Owner, id: string): Promise<EndpointView> {
    return view(await this.row(owner, id), this.clock.now());
  }

  /**
   * Changes what `changes` names. A new URL meets the rules of creation and ends the failing and backing off that the
   * old one earned; enabling clears why it was disabled, failing or paused, and deliveries waiting meanwhile go out
   * again on their schedule; disabling keeps them waiting (an endpoint the service disabled keeps its reason).
   */
  async update(owner: Owner, id: string, changes: EndpointChanges): Promise<EndpointView> {
    const url = changes.url === undefined ? undefined : this.checkUrl(changes.url);
    const description = changes.description === undefined ? undefined : checkDescription(changes.description);
    const types = changes.eventTypes === undefined ? undefined : checkTypes(changes.eventTypes);
    return this.store.transaction(async (trx) => {
      const current = await this.row(owner, id, trx, true);
      const now = this.clock.now();
      const set: Updateable<WebhookEndpointsTable> = { updated_at: now };
      const fresh = { failing_since: null, timeouts: 0, paused_until: null };
      if (url !== undefined && url !== current.url) Object.assign(set, { url, ...fresh });
      if (description !== undefined) set.description = description;
      if (types !== undefined) set.event_types = JSON.stringify(types);
      if (changes.enabled === true) Object.assign(set, { enabled: true, disabled_reason: null, disabled_at: null, ...fresh });
      if (changes.enabled === false && current.enabled) Object.assign(set, { enabled: false, disabled_reason: BY_HAND, disabled_at: now });
      const row = await trx.updateTable('webhook_endpoints').set(set).where('id', '=', current.id).returningAll().executeTakeFirstOrThrow();
      return view(row, now);
    });
  }

  setEnabled(owner: Owner, id: string, enabled: boolean): Promise<EndpointView> {
    return this.update(owner, id, { enabled });
  }

  /** A new secret, shown once; the one it replaces keeps signing beside it for ROTATION_OVERLAP_MS. */
  async rotate(owner: Owner, id: string): Promise<EndpointWithSecret> {
    return this.store.transaction(async (trx) => {
      const current = await this.row(owner, id, trx, true);
      const now = this.clock.now();
      const secret = newSigningSecret();
      const row = await trx
        .updateTable('webhook_endpoints')
        .set({
          secret,
          previous_secret: current.secret,
          previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS),
          updated_at: now,
        })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ...view(row, now), secret };
    });
  }

  /** Deletes the endpoint with its deliveries and their log. */
  async remove(owner: Owner, id: string): Promise<EndpointDeleted> {
    let query = this.db.deleteFrom('webhook_endpoints').where('id', '=', id);
    if (owner !== 'operator') query = query.where('account_id', '=', owner.accountId);
    const deleted = await query.returning('id').executeTakeFirst();
    if (!deleted) throw notFound(id);
    return { id: deleted.id, deleted: true };
  }

  /** A `webhook.test` event for this endpoint alone; a disabled endpoint would never get it, so it is refused. */
  async sendTest(owner: Owner, id: string): Promise<TestDelivery> {
    const endpoint = await this.row(owner, id);
    if (!endpoint.enabled)
      throw new ProblemError(
        'webhook-endpoint-disabled',
        `The webhook endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason ?? BY_HAND}); enable it, then send the test again.`,
      );
    return queueTest(this.store, endpoint, this.clock.now());
  }

  /** The endpoint's deliveries, newest first, each with its last attempt (the dashboard's and the CLI's log). */
  async deliveries(owner: Owner, endpointId: string, limit = 50): Promise<DeliveryView[]> {
    return deliveryLog(this.db, (await this.row(owner, endpointId)).id, limit);
  }

  /** A page of the endpoint's delivery attempts, newest first. */
  async attempts(owner: Owner, endpointId: string, page: PageRequest): Promise<Page<AttemptView>> {
    return attemptsPage(this.db, (await this.row(owner, endpointId)).id, page);
  }

  /** "Retry now": the delivery is due at once (a failed one too), whatever its schedule said or its endpoint's backing off. */
  async retry(owner: Owner, endpointId: string, deliveryId: string): Promise<void> {
    await retryDelivery(this.db, (await this.row(owner, endpointId)).id, deliveryId, this.clock.now());
  }

  /** Queues the endpoint's failed deliveries since `since` again (a bounded number a call); no further back than events are kept. */
  async recover(owner: Owner, endpointId: string, since: string): Promise<Recovery> {
    const now = this.clock.now();
    const oldest = new Date(now.getTime() - this.rules.retentionDays * DAY_MS);
    const from = new Date(since);
    if (from < oldest)
      throw new ProblemError(
        'recovery-window-exceeded',
        `since ${from.toISOString()} is before the oldest events kept (${this.rules.retentionDays} days); ` +
          `recover from ${oldest.toISOString()} or later.`,
        { oldest_since: oldest.toISOString() },
      );
    return recoverFailed(this.db, (await this.row(owner, endpointId)).id, from, now);
  }

  /** The account of an email, for the operator CLI. */
  async accountOf(email: string): Promise<string> {
    const row = await this.db.selectFrom('accounts').select('id').where('email', '=', normalizeEmail(email)).executeTakeFirst();
    if (!row) throw new NotFoundError(`There is no account ${email}.`);
    return row.id;
  }

  private checkUrl(raw: string): string {
    try {
      return checkEndpointUrl(raw.trim(), this.rules.allowPrivateNetworks);
    } catch (error) {
      if (error instanceof RefusedDestinationError)
        throw new InvalidInputError([{ field: 'url', detail: error.message }], 'webhook-url-refused');
      throw error;
    }
  }

  /** The owner's endpoint (`lock`ed for a change), or not found: another account's is not found either. */
  private async row(owner: Owner, id: string, db: Queryable = this.db, lock = false): Promise<Selectable<WebhookEndpointsTable>> {
    let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
    if (owner !== 'operator') query = query.where('account_id', '=', owner.accountId);
    const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
    if (!row) throw notFound(id);
    return row;
  }
}

const notFound = (id: string) => new NotFoundError(`There is no webhook endpoint ${id}.`);

function checkDescription(raw: string): string {
  const description = raw.trim();
  if (description.length > MAX_DESCRIPTION) throw invalidField('description', `must be at most ${MAX_DESCRIPTION} characters`);
  return description;
}

function checkTypes(raw: string[]): string[] {
  const types = [...new Set(raw.map((t) => t.trim()).filter(Boolean))];
  if (types.length === 0) throw invalidField('event_types', `choose at least one of ${EVENT_TYPES.join(', ')}`);
  const unknown = types.filter((t) => !isEventType(t));
  if (unknown.length > 0)
    throw invalidField('event_types', `has unknown types ${unknown.join(', ')}; the types are ${EVENT_TYPES.join(', ')}`);
  return types;
}
