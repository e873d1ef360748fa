import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { WebhookEndpointsTable } from '../../../db/tables/events.js';
import { checkAccountLimit } from '../account-limits.js';
import { normalizeEmail } from '../../auth/passwords.js';
import type { Clock } from '../../clock.js';
import { newId } from '../../ids.js';
import { invalidField, NotFoundError } from '../errors.js';
import { EVENT_TYPES, eventRows, isEventType, TEST_EVENT_TYPE } from '../events/outbox.js';
import { checkEndpointUrl, RefusedDestinationError } from './destinations.js';
import { newSigningSecret } from './signing.js';
import { deliveryId } from './queue.js';
import { iso, view, type DeliveryView, type EndpointView, type EndpointWithSecret, type NewEndpoint } from './views.js';

/** How long the previous secret keeps signing after a rotation, so receivers can switch without losing a delivery. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const MAX_DESCRIPTION = 500;

/** Which endpoints a caller may touch: a signed-in human's own account, or (an operator at the CLI) any. */
export type Owner = { accountId: string } | 'operator';

/**
 * Webhook endpoints and their deliveries, managed by a signed-in human (the dashboard) or an operator (the CLI),
 * never by an API token. Secrets are shown when made (creation, rotation) and kept to sign deliveries.
 */
export class WebhookEndpoints {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly allowPrivateNetworks: boolean,
  ) {}

  async create(accountId: string, input: NewEndpoint): Promise<EndpointWithSecret> {
    const url = this.checkUrl(input.url);
    const description = (input.description ?? '').trim();
    if (description.length > MAX_DESCRIPTION) throw invalidField('description', `must be at most ${MAX_DESCRIPTION} characters`);
    const types = [...new Set(input.eventTypes.map((t) => t.trim()).filter(Boolean))];
    if (types.length === 0) throw invalidField('event_types', `choose at least one of ${EVENT_TYPES.join(', ')}`);
    const unknown = types.filter((t) => !isEventType(t));
    if (unknown.length > 0)
      throw invalidField('event_types', `has unknown types ${unknown.join(', ')}; the types are ${EVENT_TYPES.join(', ')}`);
    const held = await this.db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    checkAccountLimit('webhookEndpoints', Number(held.n));
    const now = this.clock.now();
    const secret = newSigningSecret();
    const row = await this.db
      .insertInto('webhook_endpoints')
      .values({
        id: newId('we'),
        account_id: accountId,
        url,
        description,
        event_types: JSON.stringify(types),
        secret,
        enabled: true,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...view(row, now), secret };
  }

  async list(owner: Owner): Promise<EndpointView[]> {
    let query = this.db.selectFrom('webhook_endpoints').selectAll().orderBy('id');
    if (owner !== 'operator') query = query.where('account_id', '=', owner.accountId);
    const now = this.clock.now();
    return (await query.execute()).map((row) => view(row, now));
  }

  async get(owner: Owner, id: string): Promise<EndpointView> {
    return view(await this.row(owner, id), this.clock.now());
  }

  /** A new secret, shown once; the previous one keeps signing beside it for 24 hours. */
  async rotate(owner: Owner, id: string): Promise<EndpointWithSecret> {
    const current = await this.row(owner, id);
    const now = this.clock.now();
    const secret = newSigningSecret();
    const row = await this.db
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
  }

  /** Enabling clears what disabled it or paused it; deliveries waiting meanwhile go out again, on their schedule. */
  async setEnabled(owner: Owner, id: string, enabled: boolean): Promise<EndpointView> {
    const current = await this.row(owner, id);
    const now = this.clock.now();
    const row = await this.db
      .updateTable('webhook_endpoints')
      .set(
        enabled
          ? { enabled, disabled_reason: null, disabled_at: null, failing_since: null, timeouts: 0, paused_until: null, updated_at: now }
          : { enabled, disabled_reason: 'disabled by hand', disabled_at: now, updated_at: now },
      )
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return view(row, now);
  }

  /** Deletes the endpoint with its deliveries and their log. */
  async remove(owner: Owner, id: string): Promise<void> {
    const current = await this.row(owner, id);
    await this.db.deleteFrom('webhook_endpoints').where('id', '=', current.id).execute();
  }

  /** A `webhook.test` event for this endpoint alone, delivered like any other (the feed never shows it). */
  async sendTest(owner: Owner, id: string): Promise<DeliveryView> {
    const endpoint = await this.row(owner, id);
    const now = this.clock.now();
    const [event] = eventRows([
      {
        accountId: endpoint.account_id,
        type: TEST_EVENT_TYPE,
        at: now,
        data: { endpoint_id: endpoint.id, message: 'A test event sent from the dashboard.' },
      },
    ]);
    const delivery = {
      id: deliveryId(),
      endpoint_id: endpoint.id,
      event_id: event!.id,
      account_id: endpoint.account_id,
      status: 'pending' as const,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('events').values(event!).execute();
      await trx.insertInto('webhook_deliveries').values(delivery).execute();
    });
    return (await this.deliveries(owner, endpoint.id, 1))[0]!;
  }

  /** The endpoint's deliveries, newest first, each with its last attempt. */
  async deliveries(owner: Owner, endpointId: string, limit = 50): Promise<DeliveryView[]> {
    const endpoint = await this.row(owner, endpointId);
    const rows = await this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as ev', 'ev.id', 'd.event_id')
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('webhook_attempts as a')
            .select(['a.latency_ms', 'a.response_body'])
            .whereRef('a.delivery_id', '=', 'd.id')
            .orderBy('a.id', 'desc')
            .limit(1)
            .as('last'),
        (join) => join.onTrue(),
      )
      .select([
        'd.id',
        'd.event_id',
        'ev.type',
        'd.status',
        'd.attempts',
        'd.last_status_code',
        'd.last_error',
        'd.next_attempt_at',
        'd.created_at',
        'last.latency_ms',
        'last.response_body',
      ])
      .where('d.endpoint_id', '=', endpoint.id)
      .orderBy('d.created_at', 'desc')
      .orderBy('d.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      event_id: r.event_id,
      type: r.type,
      status: r.status,
      attempts: r.attempts,
      last_status_code: r.last_status_code,
      last_latency_ms: r.latency_ms ?? null,
      last_error: r.last_error,
      last_response: r.response_body ?? null,
      next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
      created_at: iso(r.created_at)!,
    }));
  }

  /** "Retry now": the delivery is due at once (a failed one too), whatever its schedule said or its endpoint's backing off. */
  async retry(owner: Owner, endpointId: string, deliveryIdToRetry: string): Promise<void> {
    const endpoint = await this.row(owner, endpointId);
    const now = this.clock.now();
    const updated = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: now, updated_at: now })
      .where('id', '=', deliveryIdToRetry)
      .where('endpoint_id', '=', endpoint.id)
      .where('status', '<>', 'succeeded')
      .returning('id')
      .executeTakeFirst();
    if (!updated) throw new NotFoundError(`There is no pending or failed delivery ${deliveryIdToRetry} of this endpoint.`);
    // The pause ends; the count of attempts without an answer stays, so another one pauses the endpoint again.
    await this.db.updateTable('webhook_endpoints').set({ paused_until: null }).where('id', '=', endpoint.id).execute();
  }

  /** The account of an email, for the operator CLI. */
  async accountOf(email: string): Promise<string> {
    const row = await this.db.selectFrom('accounts').select('id').where('email', '=', normalizeEmail(email)).executeTakeFirst();
    if (!row) throw new NotFoundError(`There is no account ${email}.`);
    return row.id;
  }

  private checkUrl(raw: string): string {
    try {
      return checkEndpointUrl(raw.trim(), this.allowPrivateNetworks);
    } catch (error) {
      if (error instanceof RefusedDestinationError) throw invalidField('url', error.message);
      throw error;
    }
  }

  private async row(owner: Owner, id: string): Promise<Selectable<WebhookEndpointsTable>> {
    let query = this.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
    if (owner !== 'operator') query = query.where('account_id', '=', owner.accountId);
    const row = await query.executeTakeFirst();
    if (!row) throw new NotFoundError(`There is no webhook endpoint ${id}.`);
    return row;
  }
}
