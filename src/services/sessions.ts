import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { Origin } from '../auth/authorize.js';
import type { Clock } from '../clock.js';
import { newSecret } from '../ids.js';
import type { Queryable } from './store.js';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60_000;
const TOKEN = /^ias_session_[A-Za-z0-9_-]{43}$/;

export interface Session {
  idHash: string;
  accountId: string;
  email: string;
  name: string;
  expiresAt: Date;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** AES-256-GCM under a key derived from the session token, which the database never holds. */
function flashKey(token: string): Buffer {
  return createHmac('sha256', token).update('dashboard flash').digest();
}

/**
 * Dashboard sessions: an opaque random token in an HttpOnly cookie, only its SHA-256 in PostgreSQL, a fixed
 * lifetime, and a new token at every login (the one presented at login, if any, ends). A session token is not a
 * JWT, so the API's token verification refuses it like any other garbage.
 */
export class SessionService {
  private lastSweep = 0;

  constructor(
    private readonly db: Queryable,
    private readonly clock: Clock,
    private readonly csrfKey: Buffer,
  ) {}

  async create(accountId: string, origin: Origin, replacing?: string): Promise<{ token: string; expiresAt: Date }> {
    const now = this.clock.now();
    await this.sweep(now);
    if (replacing) await this.end(replacing);
    const token = newSecret('ias_session');
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
    await this.db
      .insertInto('dashboard_sessions')
      .values({
        id_hash: hashOf(token),
        account_id: accountId,
        created_at: now,
        expires_at: expiresAt,
        ip: origin.ip,
        user_agent: origin.userAgent,
      })
      .execute();
    return { token, expiresAt };
  }

  /** The live session of a token, or null (unknown, ended or expired). */
  async authenticate(token: string | undefined): Promise<Session | null> {
    if (!token || !TOKEN.test(token)) return null;
    const row = await this.db
      .selectFrom('dashboard_sessions')
      .innerJoin('accounts', 'accounts.id', 'dashboard_sessions.account_id')
      .select([
        'dashboard_sessions.id_hash',
        'dashboard_sessions.account_id',
        'dashboard_sessions.expires_at',
        'accounts.email',
        'accounts.name',
      ])
      .where('dashboard_sessions.id_hash', '=', hashOf(token))
      .where('dashboard_sessions.expires_at', '>', this.clock.now())
      .executeTakeFirst();
    return row
      ? { idHash: row.id_hash, accountId: row.account_id, email: row.email, name: row.name, expiresAt: new Date(row.expires_at) }
      : null;
  }

  async end(token: string): Promise<void> {
    await this.db.deleteFrom('dashboard_sessions').where('id_hash', '=', hashOf(token)).execute();
  }

  /** Keeps a message for the session's next page only (a client secret to show once), unreadable without the token. */
  async setFlash(token: string, message: string): Promise<void> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', flashKey(token), iv);
    const sealed = Buffer.concat([cipher.update(message, 'utf8'), cipher.final()]);
    const stored = [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url')).join('.');
    await this.db.updateTable('dashboard_sessions').set({ flash: stored }).where('id_hash', '=', hashOf(token)).execute();
  }

  /** The kept message, removed in the same statement: a reload (or a second tab) does not see it again. */
  async takeFlash(token: string): Promise<string | null> {
    const { rows } = await sql<{ flash: string | null }>`
      update dashboard_sessions s set flash = null
      from (select id_hash, flash from dashboard_sessions where id_hash = ${hashOf(token)} for update) old
      where s.id_hash = old.id_hash and old.flash is not null
      returning old.flash`.execute(this.db);
    const stored = rows[0]?.flash;
    if (!stored) return null;
    const [iv, tag, sealed] = stored.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', flashKey(token), iv!);
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(sealed!), decipher.final()]).toString('utf8');
  }

  /**
   * The CSRF token of a form: an HMAC of what identifies the visitor (the session's hash when signed in, the
   * pre-session cookie before), so it is tied to that session and needs no storage of its own.
   */
  csrfToken(anchor: string): string {
    return createHmac('sha256', this.csrfKey).update(`csrf\0${anchor}`).digest('base64url');
  }

  /**
   * A pre-session identifier issued by this service: a random id and its HMAC. `preSession(given)` answers the given
   * cookie's value when this service issued it, else a new one (`issued: true`): a value the client chose is never
   * adopted, so no one can fix another browser's pre-session (login CSRF by a planted cookie).
   */
  preSession(given: string | undefined): { value: string; issued: boolean } {
    const [id, mac] = (given ?? '').split('.');
    if (id && mac && /^[\w-]{43}$/.test(id)) {
      const expected = Buffer.from(this.preMac(id));
      const received = Buffer.from(mac);
      if (received.length === expected.length && timingSafeEqual(received, expected)) return { value: given!, issued: false };
    }
    const fresh = randomBytes(32).toString('base64url');
    return { value: `${fresh}.${this.preMac(fresh)}`, issued: true };
  }

  private preMac(id: string): string {
    return createHmac('sha256', this.csrfKey).update(`pre\0${id}`).digest('base64url');
  }

  checkCsrf(anchor: string, token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const expected = Buffer.from(this.csrfToken(anchor));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private async sweep(now: Date): Promise<void> {
    if (now.getTime() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now.getTime();
    await this.db.deleteFrom('dashboard_sessions').where('expires_at', '<', now).execute();
  }
}
