import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { checkAccountLimit } from './account-limits.js';
import type { Kysely } from 'kysely';
import type { ApiClient, Database } from '../../db/schema.js';
import type { Actor } from '../auth/authorize.js';
import { normalizeEmail } from '../auth/passwords.js';
import type { SecretHasher } from '../auth/secrets.js';
import { SCOPES, type ClientStatusSource } from '../auth/tokens.js';
import { newId, newSecret } from '../ids.js';
import { ensureAccount } from './accounts.js';
import { ReadThrough } from './read-through.js';
import { invalidField, NotFoundError } from './errors.js';

/** How long a verified client secret is remembered (as a keyed hash), and for how many clients at most. */
const VERIFIED_SECRET_TTL_MS = 10 * 60_000;
const MAX_VERIFIED_SECRETS = 10_000;

const MAX_NAME_LENGTH = 100;

export class ClientInputError extends Error {
  override name = 'ClientInputError';
}

export interface ClientView {
  client_id: string;
  account_id: string;
  name: string;
  scopes: string[];
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface ClientWithSecret extends ClientView {
  client_secret: string;
}

function view(row: ApiClient): ClientView {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    client_id: row.client_id,
    account_id: row.account_id,
    name: row.name,
    scopes: row.scopes.split(' '),
    created_at: new Date(row.created_at).toISOString(),
    rotated_at: iso(row.rotated_at),
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
  };
}

export function parseScopes(raw: string): string[] {
  const scopes = [...new Set(raw.split(/[\s,]+/).filter(Boolean))];
  if (scopes.length === 0) throw new ClientInputError(`choose at least one scope of: ${SCOPES.join(', ')}`);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new ClientInputError(`unknown scope ${unknown.join(', ')}; scopes are ${SCOPES.join(', ')}`);
  return scopes;
}

/**
 * API clients: client credentials owned by an account. Only bcrypt hashes of secrets are stored. The generation
 * bumps on rotation and revocation; tokens carry the generation they were issued under, so both invalidate every
 * outstanding token: at once on this instance, and within `statusCacheMs` on the others.
 */
export class ClientService implements ClientStatusSource {
  /** The generation of each client in use (null: unknown or revoked), read through within `statusCacheMs`. */
  private readonly status: ReadThrough<string, number | null>;

  private readonly verifiedSecrets = new Map<string, { mac: Buffer; hash: string; until: number }>();
  private readonly secretMacKey = randomBytes(32);

  constructor(
    private readonly db: Kysely<Database>,
    private readonly hasher: SecretHasher,
    statusCacheMs: number,
  ) {
    this.status = new ReadThrough(statusCacheMs, (clientId) =>
      this.db
        .selectFrom('api_clients')
        .select(['generation', 'revoked_at'])
        .where('client_id', '=', clientId)
        .executeTakeFirst()
        .then((row) => (row && !row.revoked_at ? row.generation : null)),
    );
  }

  /** Operators (CLI): a client for the account with this email, created with the account if absent. */
  async create(input: { accountEmail: string; scopes: string[]; name?: string }): Promise<ClientWithSecret> {
    const account = await ensureAccount(this.db, input.accountEmail);
    return this.insert(account.id, parseScopes(input.scopes.join(' ')), input.name);
  }

  async list(accountEmail: string): Promise<ClientView[]> {
    const rows = await this.db
      .selectFrom('api_clients')
      .innerJoin('accounts', 'accounts.id', 'api_clients.account_id')
      .selectAll('api_clients')
      .where('accounts.email', '=', normalizeEmail(accountEmail))
      .orderBy('api_clients.created_at')
      .execute();
    return rows.map(view);
  }

  /** Operators (CLI): any live client; null when there is none with this id. */
  rotate(clientId: string): Promise<ClientWithSecret | null> {
    return this.rotateWhere(clientId, undefined);
  }

  revoke(clientId: string): Promise<ClientView | null> {
    return this.revokeWhere(clientId, undefined);
  }

  /** The signed-in human's clients (dashboard), oldest first. */
  async listFor(actor: Actor<'listClients'>): Promise<ClientView[]> {
    const rows = await this.db
      .selectFrom('api_clients')
      .selectAll()
      .where('account_id', '=', actor.accountId)
      .orderBy('created_at')
      .execute();
    return rows.map(view);
  }

  async createFor(actor: Actor<'createClient'>, input: { name: string; scopes: string[] }): Promise<ClientWithSecret> {
    const name = input.name.trim();
    if (!name) throw invalidField('name', 'is required: name the integration that will use this client');
    if (name.length > MAX_NAME_LENGTH) throw invalidField('name', `must be at most ${MAX_NAME_LENGTH} characters`);
    let scopes: string[];
    try {
      scopes = parseScopes(input.scopes.join(' '));
    } catch (error) {
      if (error instanceof ClientInputError) throw invalidField('scopes', error.message);
      throw error;
    }
    const held = await this.db
      .selectFrom('api_clients')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', actor.accountId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    checkAccountLimit('apiClients', Number(held.n));
    return this.insert(actor.accountId, scopes, name);
  }

  /** Only the account's own live clients: any other id is simply not found. */
  async rotateFor(actor: Actor<'rotateClient'>, clientId: string): Promise<ClientWithSecret> {
    const client = await this.rotateWhere(clientId, actor.accountId);
    if (!client) throw new NotFoundError(`You have no active client ${clientId}.`);
    return client;
  }

  async revokeFor(actor: Actor<'revokeClient'>, clientId: string): Promise<ClientView> {
    const client = await this.revokeWhere(clientId, actor.accountId);
    if (!client) throw new NotFoundError(`You have no active client ${clientId}.`);
    return client;
  }

  private async insert(accountId: string, scopes: string[], name: string | undefined): Promise<ClientWithSecret> {
    const secret = newSecret('ias_secret');
    const row = await this.db
      .insertInto('api_clients')
      .values({
        client_id: newId('ias_client'),
        account_id: accountId,
        name: name?.trim() || 'API client',
        scopes: scopes.join(' '),
        secret_hash: await this.hasher.hash(secret),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...view(row), client_secret: secret };
  }

  private async rotateWhere(clientId: string, accountId: string | undefined): Promise<ClientWithSecret | null> {
    const secret = newSecret('ias_secret');
    const secretHash = await this.hasher.hash(secret);
    let query = this.db
      .updateTable('api_clients')
      .set((eb) => ({ secret_hash: secretHash, generation: eb('generation', '+', 1), rotated_at: new Date() }))
      .where('client_id', '=', clientId)
      .where('revoked_at', 'is', null);
    if (accountId) query = query.where('account_id', '=', accountId);
    const row = await query.returningAll().executeTakeFirst();
    this.forgetStatus(clientId);
    return row ? { ...view(row), client_secret: secret } : null;
  }

  private async revokeWhere(clientId: string, accountId: string | undefined): Promise<ClientView | null> {
    let query = this.db
      .updateTable('api_clients')
      .set((eb) => ({ generation: eb('generation', '+', 1), revoked_at: new Date() }))
      .where('client_id', '=', clientId)
      .where('revoked_at', 'is', null);
    if (accountId) query = query.where('account_id', '=', accountId);
    const row = await query.returningAll().executeTakeFirst();
    this.forgetStatus(clientId);
    return row ? view(row) : null;
  }

  /** After a rotation or revocation: the cached status and any read in flight (it may predate the change) are dropped. */
  private forgetStatus(clientId: string): void {
    this.status.forget(clientId);
  }

  /** Whether `secret` is the live client's secret, without recording a use (the demo seed checks its saved copy). */
  async secretMatches(clientId: string, secret: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('api_clients')
      .select(['secret_hash', 'revoked_at'])
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return (await this.hasher.verify(secret, row?.secret_hash)) && !row?.revoked_at;
  }

  /** The live client for these credentials, or null; never says which part was wrong. */
  async authenticate(clientId: string, secret: string): Promise<ApiClient | null> {
    const row = await this.db.selectFrom('api_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    // A secret verified lately against this very hash is not checked by bcrypt again: a legitimate client does not
    // pay 50+ ms per token. Only a keyed hash of the secret is kept in memory; a rotation changes the stored hash
    // and a revocation is read from the row, so both take effect at once.
    const mac = createHmac('sha256', this.secretMacKey).update(`${clientId}\n${secret}`).digest();
    const cached = this.verifiedSecrets.get(clientId);
    const remembered = Boolean(
      row?.secret_hash && cached && cached.until > Date.now() && cached.hash === row.secret_hash && timingSafeEqual(cached.mac, mac),
    );
    const matches = remembered || (await this.hasher.verify(secret, row?.secret_hash));
    if (!row || !matches || row.revoked_at) return null;
    if (!remembered) {
      if (this.verifiedSecrets.size >= MAX_VERIFIED_SECRETS) this.verifiedSecrets.delete(this.verifiedSecrets.keys().next().value!);
      this.verifiedSecrets.set(clientId, { mac, hash: row.secret_hash, until: Date.now() + VERIFIED_SECRET_TTL_MS });
    }
    await this.db.updateTable('api_clients').set({ last_used_at: new Date() }).where('client_id', '=', clientId).execute();
    return row;
  }

  currentGeneration(clientId: string): number | null | Promise<number | null> {
    return this.status.get(clientId);
  }
}
