import { createHash } from 'node:crypto';
import type { GuardedRedis } from './guarded-redis.js';

/** A key's count in its current window. */
export interface WindowCount {
  total: number;
  /** When the window ends and the count starts again from 0. */
  resetTime: Date;
}

/**
 * Counts per key over fixed windows (a key's window starts with its first count), adding any whole amount — one
 * failed authentication, or milliseconds of CPU. Never rejects: `undefined` means the store cannot say now (Redis
 * failing), and callers fail open.
 */
export interface WindowCounter {
  /** Adds `amount` (a whole number, at least 1) to `key` and answers the new count. */
  add(key: string, amount?: number): Promise<WindowCount | undefined>;
  /** The count so far (total 0 when the key has none in a live window). */
  get(key: string): Promise<WindowCount | undefined>;
}

function checkAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount < 1) throw new RangeError(`a counter adds whole amounts of at least 1, not ${amount}`);
}

/**
 * In this process's memory (no REDIS_URL), holding at most `maxKeys` keys. Every key of a counter has the same
 * window, so the Map's insertion order is the order in which windows end: expired keys are dropped from its front,
 * and when it is full of live ones the oldest goes (its count restarts — a bound that callers' input cannot move).
 */
export class MemoryWindowCounter implements WindowCounter {
  private readonly counts = new Map<string, { total: number; resetAt: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
    private readonly clock: () => number = Date.now,
  ) {}

  async add(key: string, amount = 1): Promise<WindowCount> {
    checkAmount(amount);
    const now = this.clock();
    this.dropExpired(now);
    let entry = this.counts.get(key);
    if (!entry) {
      if (this.counts.size >= this.maxKeys) this.counts.delete(this.counts.keys().next().value!);
      entry = { total: 0, resetAt: now + this.windowMs };
      this.counts.set(key, entry);
    }
    entry.total += amount;
    return { total: entry.total, resetTime: new Date(entry.resetAt) };
  }

  async get(key: string): Promise<WindowCount> {
    const now = this.clock();
    this.dropExpired(now);
    const entry = this.counts.get(key);
    return entry ? { total: entry.total, resetTime: new Date(entry.resetAt) } : { total: 0, resetTime: new Date(now + this.windowMs) };
  }

  private dropExpired(now: number): void {
    for (const [key, entry] of this.counts) {
      if (entry.resetAt > now) return;
      this.counts.delete(key);
    }
  }
}

// Atomic per key: the count and its window's end, the expiry set with the first count of a window.
const ADD_SCRIPT = `local total = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {total, ttl}`;
const GET_SCRIPT = `return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}`;
const sha1 = (script: string) => createHash('sha1').update(script).digest('hex');
const SCRIPTS = { add: { source: ADD_SCRIPT, sha: sha1(ADD_SCRIPT) }, get: { source: GET_SCRIPT, sha: sha1(GET_SCRIPT) } };

/**
 * In Redis, shared by every instance, through the guarded connection (each command bounded, a breaker after
 * failures). Written here rather than with rate-limit-redis's store: that one counts one hit at a time and keeps a
 * failed script load for good; this one adds any amount, and runs its script by SHA, sending it once more when Redis
 * does not know it (after a restart or SCRIPT FLUSH).
 */
export class RedisWindowCounter implements WindowCounter {
  constructor(
    private readonly redis: GuardedRedis,
    private readonly prefix: string,
    private readonly windowMs: number,
  ) {}

  async add(key: string, amount = 1): Promise<WindowCount | undefined> {
    checkAmount(amount);
    return this.run(SCRIPTS.add, key, [String(amount), String(this.windowMs)]);
  }

  get(key: string): Promise<WindowCount | undefined> {
    return this.run(SCRIPTS.get, key, []);
  }

  private async run(script: { source: string; sha: string }, key: string, args: string[]): Promise<WindowCount | undefined> {
    const redisKey = `${this.prefix}${key}`;
    let reply: [number | string | null, number];
    try {
      reply = await this.redis.command(['EVALSHA', script.sha, '1', redisKey, ...args]);
    } catch (error) {
      if (!/^NOSCRIPT/.test((error as Error).message)) return undefined;
      try {
        reply = await this.redis.command(['EVAL', script.source, '1', redisKey, ...args]);
      } catch {
        return undefined;
      }
    }
    const [total, ttl] = reply;
    const live = typeof ttl === 'number' && ttl > 0;
    return { total: live && total !== null ? Number(total) : 0, resetTime: new Date(Date.now() + (live ? ttl : this.windowMs)) };
  }
}

/**
 * Keys seen within the last `ttlMs` (each mark restarts its key's time). Like WindowCounter it never rejects:
 * `undefined` means the store cannot say now.
 */
export interface RecentKeys {
  mark(key: string): Promise<void>;
  has(key: string): Promise<boolean | undefined>;
}

/** In memory, at most `maxKeys` (a mark moves its key to the end, so the Map stays ordered by expiry). */
export class MemoryRecentKeys implements RecentKeys {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxKeys = 100_000,
    private readonly clock: () => number = Date.now,
  ) {}

  async mark(key: string): Promise<void> {
    const now = this.clock();
    this.dropExpired(now);
    this.expiries.delete(key);
    if (this.expiries.size >= this.maxKeys) this.expiries.delete(this.expiries.keys().next().value!);
    this.expiries.set(key, now + this.ttlMs);
  }

  async has(key: string): Promise<boolean> {
    this.dropExpired(this.clock());
    return this.expiries.has(key);
  }

  private dropExpired(now: number): void {
    for (const [key, expiry] of this.expiries) {
      if (expiry > now) return;
      this.expiries.delete(key);
    }
  }
}

export class RedisRecentKeys implements RecentKeys {
  constructor(
    private readonly redis: GuardedRedis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {}

  async mark(key: string): Promise<void> {
    await this.redis.command(['SET', `${this.prefix}${key}`, '1', 'PX', String(this.ttlMs)]).catch(() => {});
  }

  async has(key: string): Promise<boolean | undefined> {
    try {
      return (await this.redis.command<number>(['EXISTS', `${this.prefix}${key}`])) === 1;
    } catch {
      return undefined;
    }
  }
}
