import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { components } from '../../generated/api.js';
import type { Origin } from '../auth/authorize.js';
import type { Clock } from '../clock.js';
import { ProblemError } from '../problems.js';
import type { FailureCounters } from './failures.js';
import type { Queryable } from './store.js';

type Challenge = components['schemas']['Challenge'];
export type ChallengePurpose = 'signup' | 'login' | 'contact';

const VERSION = 'v1';
const TTL_SECONDS = 300;
/** Failures an address may have before its difficulty rises (one bit per further failure, at most MAX_EXTRA_BITS). */
const FREE_FAILURES = 3;
const MAX_EXTRA_BITS = 8;
const SWEEP_EVERY_MS = 60_000;
const CHALLENGE = /^v1\.(signup|login|contact|any)\.(\d{1,2})\.(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
/** What every refused solution tells the caller to do; each channel adds where challenges come from and how a solution travels. */
const WHAT_TO_DO = 'Get a new challenge, solve it and send the solution again.';
export const SOLUTION_FORMAT = '`<challenge>:<nonce>`: the challenge string exactly as issued and a decimal nonce';

/** Leading zero bits of a digest. */
export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

/**
 * Proof-of-work challenges for the anonymous writes (DESIGN section 4). A challenge is
 * `v1.<purpose>.<difficulty>.<expires, unix s>.<salt>.<HMAC-SHA256 of the rest>`: self-contained, so issuing one
 * stores nothing. A solution is `<challenge>:<nonce>` whose SHA-256 has `difficulty` leading zero bits. Solved
 * challenges are remembered (by hash) in PostgreSQL until they expire, so each is accepted once across instances.
 * Every failure counts against the client address, whose next challenges are harder.
 */
export class ChallengeService {
  private lastSweep = 0;

  constructor(
    private readonly db: Queryable,
    private readonly key: Buffer,
    private readonly clock: Clock,
    private readonly baseDifficulty: number,
    private readonly failures: FailureCounters,
  ) {}

  async issue(origin: Origin, purpose: ChallengePurpose | undefined): Promise<Challenge> {
    const now = this.clock.now();
    const difficulty = await this.difficultyFor(origin.ip, now);
    const expires = Math.floor(now.getTime() / 1000) + TTL_SECONDS;
    const unsigned = `${VERSION}.${purpose ?? 'any'}.${difficulty}.${expires}.${randomBytes(16).toString('base64url')}`;
    return {
      algorithm: 'SHA-256',
      challenge: `${unsigned}.${this.sign(unsigned)}`,
      difficulty,
      expires_at: new Date(expires * 1000).toISOString(),
      purpose: purpose ?? 'any',
    };
  }

  /** Accepts a solution once, or throws the problem that says what is wrong with it (and counts the failure). */
  async verify(solution: string | undefined, purpose: ChallengePurpose, origin: Origin): Promise<void> {
    const now = this.clock.now();
    await this.sweep(now);
    if (!solution) throw new ProblemError('challenge-missing', `This request needs a solved proof-of-work challenge. ${WHAT_TO_DO}`);
    try {
      await this.check(solution, purpose, origin, now);
    } catch (error) {
      await this.failures.record('address', origin.ip, now);
      throw error;
    }
  }

  /** The difficulty the address needs now: the configured one, plus a bit for every recent failure past the first few. */
  async difficultyFor(ip: string, now: Date): Promise<number> {
    const { failures } = await this.failures.state('address', ip, now);
    return this.baseDifficulty + Math.min(MAX_EXTRA_BITS, Math.max(0, failures - FREE_FAILURES));
  }

  private async check(solution: string, purpose: ChallengePurpose, origin: Origin, now: Date): Promise<void> {
    const colon = solution.lastIndexOf(':');
    const challenge = solution.slice(0, colon);
    const nonce = solution.slice(colon + 1);
    const parts = CHALLENGE.exec(challenge);
    if (colon < 0 || !parts || !/^\d{1,20}$/.test(nonce))
      throw new ProblemError('challenge-malformed', `A solution must be ${SOLUTION_FORMAT}. ${WHAT_TO_DO}`);
    const [, issuedFor, difficultyText, expiresText, , signature] = parts;
    const unsigned = challenge.slice(0, challenge.lastIndexOf('.'));
    if (!timingSafeEqual(Buffer.from(signature!), Buffer.from(this.sign(unsigned)))) {
      throw new ProblemError('challenge-failed', `The challenge was not issued by this service. ${WHAT_TO_DO}`);
    }
    const expiresAt = new Date(Number(expiresText) * 1000);
    if (expiresAt <= now) throw new ProblemError('challenge-expired', `The challenge expired at ${expiresAt.toISOString()}. ${WHAT_TO_DO}`);
    if (issuedFor !== 'any' && issuedFor !== purpose) {
      throw new ProblemError(
        'challenge-failed',
        `The challenge was issued for ${issuedFor}, not ${purpose}. Get one issued for ${purpose}.`,
      );
    }
    const difficulty = Number(difficultyText);
    const needed = await this.difficultyFor(origin.ip, now);
    if (difficulty < needed) {
      throw new ProblemError(
        'challenge-failed',
        `After repeated failures from your address a solution needs ${needed} bits; this challenge has ${difficulty}. ${WHAT_TO_DO}`,
      );
    }
    const digest = createHash('sha256').update(`${challenge}:${nonce}`, 'utf8').digest();
    if (leadingZeroBits(digest) < difficulty) {
      throw new ProblemError(
        'challenge-failed',
        `SHA-256 of "<challenge>:${nonce}" does not start with ${difficulty} zero bits; keep searching for a nonce that does.`,
      );
    }
    const first = await this.db
      .insertInto('solved_challenges')
      .values({ challenge_hash: createHash('sha256').update(challenge).digest('hex'), expires_at: expiresAt })
      .onConflict((c) => c.column('challenge_hash').doNothing())
      .returning('challenge_hash')
      .executeTakeFirst();
    if (!first) throw new ProblemError('challenge-replayed', `This solved challenge was already used once. ${WHAT_TO_DO}`);
  }

  private sign(unsigned: string): string {
    return createHmac('sha256', this.key).update(unsigned).digest('base64url');
  }

  /** Forgets expired solved challenges and stale failure counters, at most once a minute per process. */
  private async sweep(now: Date): Promise<void> {
    if (now.getTime() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now.getTime();
    await this.db.deleteFrom('solved_challenges').where('expires_at', '<', now).execute();
    await this.failures.sweep(now);
  }
}
