import type { components } from '../../generated/api.js';
import type { Origin } from '../auth/authorize.js';
import { normalizeEmail, passwordProblem } from '../auth/passwords.js';
import type { SecretHasher } from '../auth/secrets.js';
import { newId } from '../ids.js';
import { ProblemError } from '../problems.js';
import type { ChallengeService } from './challenges.js';
import type { ServiceContext } from './context.js';
import { invalidField } from './errors.js';
import type { FailureCounters } from './failures.js';
import type { SessionService } from './sessions.js';
import type { Queryable } from './store.js';

type SignupRequest = components['schemas']['SignupRequest'];
type LoginRequest = components['schemas']['LoginRequest'];
type ContactRequest = components['schemas']['ContactRequest'];
type AccountView = components['schemas']['Account'];
type DashboardSession = components['schemas']['DashboardSession'];
type ContactReceipt = components['schemas']['ContactReceipt'];

export interface ContactMessage extends ContactReceipt {
  email: string;
  name: string;
  message: string;
  ip: string;
  user_agent: string | null;
}

export interface PeopleDependencies {
  challenges: ChallengeService;
  failures: FailureCounters;
  sessions: SessionService;
  hasher: SecretHasher;
}

/**
 * The human front door: sign-up, login and the contact form, each behind a solved proof-of-work challenge.
 * Login answers the same, in about the same time, for an unknown email and a wrong password, and failures lock
 * the email address and the client address for a while (FailureCounters), so guessing is slow on every instance.
 */
export class PeopleService {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly deps: PeopleDependencies,
  ) {}

  async signUp(body: SignupRequest, solution: string | undefined, origin: Origin): Promise<AccountView> {
    await this.deps.challenges.verify(solution, 'signup', origin);
    const email = normalizeEmail(body.email);
    const weak = passwordProblem(body.password, email);
    if (weak) throw invalidField('password', weak);
    const row = await this.ctx.store.db
      .insertInto('accounts')
      .values({
        id: newId('acct'),
        email,
        name: body.name.trim() || email,
        password_hash: await this.deps.hasher.hash(body.password),
        created_at: this.ctx.clock.now(),
      })
      .onConflict((c) => c.column('email').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new ProblemError('email-taken', `An account with ${email} already exists; log in instead.`);
    return { id: row.id, email: row.email, name: row.name, created_at: new Date(row.created_at).toISOString() };
  }

  /** A new dashboard session; `replacing` (the session the browser held, if any) ends, so a login never keeps an old token. */
  async logIn(body: LoginRequest, solution: string | undefined, origin: Origin, replacing?: string): Promise<DashboardSession> {
    await this.deps.challenges.verify(solution, 'login', origin);
    const { failures, hasher, sessions } = this.deps;
    const email = normalizeEmail(body.email);
    const now = this.ctx.clock.now();
    const locks = await Promise.all([failures.state('email', email, now), failures.state('address', origin.ip, now)]);
    const lockedUntil = locks
      .map((s) => s.lockedUntil)
      .filter((d): d is Date => d !== null)
      .sort((a, b) => b.getTime() - a.getTime())[0];
    if (lockedUntil) throw lockedProblem(lockedUntil, now);

    const account = await this.ctx.store.db
      .selectFrom('accounts')
      .select(['id', 'password_hash'])
      .where('email', '=', email)
      .executeTakeFirst();
    if (!(await hasher.verify(body.password, account?.password_hash)) || !account) {
      const [byEmail, byAddress] = await Promise.all([failures.record('email', email, now), failures.record('address', origin.ip, now)]);
      const locked = [byEmail.lockedUntil, byAddress.lockedUntil].filter((d): d is Date => d !== null);
      const hint = locked.length > 0 ? ` Too many failures: the next attempt is possible in ${secondsUntil(locked[0]!, now)} seconds.` : '';
      throw new ProblemError('invalid-credentials', `The email address and password do not match an account.${hint}`);
    }
    await failures.clear('email', email);
    const session = await sessions.create(account.id, origin, replacing);
    return { session_token: session.token, expires_at: session.expiresAt.toISOString(), account_id: account.id };
  }

  async sendContactMessage(body: ContactRequest, solution: string | undefined, origin: Origin): Promise<ContactReceipt> {
    await this.deps.challenges.verify(solution, 'contact', origin);
    const receivedAt = this.ctx.clock.now();
    const id = newId('msg', receivedAt.getTime());
    await this.ctx.store.db
      .insertInto('contact_messages')
      .values({
        id,
        email: normalizeEmail(body.email),
        name: body.name,
        message: body.message,
        ip: origin.ip,
        user_agent: origin.userAgent,
        received_at: receivedAt,
      })
      .execute();
    return { id, received_at: receivedAt.toISOString() };
  }

  /** Every contact message, newest first (for operators). */
  contactMessages(): Promise<ContactMessage[]> {
    return contactMessages(this.ctx.store.db);
  }

  /**
   * Sets the password of the account with `email` (created if absent), for operators and the demo seed only: no
   * challenge, but the same password rules.
   */
  async setPassword(rawEmail: string, password: string, name?: string): Promise<string> {
    const email = normalizeEmail(rawEmail);
    const weak = passwordProblem(password, email);
    if (weak) throw invalidField('password', weak);
    const passwordHash = await this.deps.hasher.hash(password);
    const row = await this.ctx.store.db
      .insertInto('accounts')
      .values({ id: newId('acct'), email, name: name ?? email.split('@')[0]!, password_hash: passwordHash })
      .onConflict((c) => c.column('email').doUpdateSet({ password_hash: passwordHash }))
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async hasPassword(rawEmail: string): Promise<boolean> {
    const account = await this.ctx.store.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('email', '=', normalizeEmail(rawEmail))
      .executeTakeFirst();
    return Boolean(account?.password_hash);
  }

  /** Whether `password` is the account's current password (the demo seed checks its saved copy with this). */
  async passwordMatches(rawEmail: string, password: string): Promise<boolean> {
    const account = await this.ctx.store.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('email', '=', normalizeEmail(rawEmail))
      .executeTakeFirst();
    return this.deps.hasher.verify(password, account?.password_hash);
  }
}

/** Every contact message, newest first: what the operator CLI lists. */
export async function contactMessages(db: Queryable): Promise<ContactMessage[]> {
  const rows = await db.selectFrom('contact_messages').selectAll().orderBy('received_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map((r) => ({
    id: r.id,
    received_at: new Date(r.received_at).toISOString(),
    email: r.email,
    name: r.name,
    message: r.message,
    ip: r.ip,
    user_agent: r.user_agent,
  }));
}

function secondsUntil(until: Date, now: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
}

function lockedProblem(until: Date, now: Date): ProblemError {
  const seconds = secondsUntil(until, now);
  return new ProblemError(
    'login-locked',
    `Logins for this email address or from your address failed too often; try again in ${seconds} seconds.`,
    {},
    seconds * 1000,
  );
}
