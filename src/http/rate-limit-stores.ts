import { MemoryStore, type ClientRateLimitInfo, type Options, type Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import { RedisStore } from 'rate-limit-redis';
import type { Config } from '../config.js';
import { GuardedRedis } from '../counters/guarded-redis.js';
import {
  MemoryRecentKeys,
  MemoryWindowCounter,
  RedisRecentKeys,
  RedisWindowCounter,
  type RecentKeys,
  type WindowCounter,
} from '../counters/window-counters.js';

/** The shared counters' health, for /readyz: `undefined` without REDIS_URL (counters in memory). */
export interface RateLimitStoreStatus {
  state(): 'ok' | 'fail' | undefined;
}

/**
 * Where every limit of the service keeps its counts: in Redis when REDIS_URL is set (one budget for every
 * instance), else in this process's memory. The one owner of the Redis connection, guarded (GuardedRedis: each
 * command bounded by RATE_LIMIT_REDIS_TIMEOUT_MS, a breaker for RATE_LIMIT_REDIS_BREAKER_MS after failures), so a
 * Redis that is gone or hangs never holds a request: the limits fail open, the outage is logged at most once a minute,
 * and /readyz reports it. Three kinds of counter, each under its own name (a key prefix in Redis):
 * - `store(name, windowMs)`: an express-rate-limit store (one hit per request) for request limits;
 * - `counter(name, windowMs)`: a WindowCounter that adds any whole amount and reads a count without adding;
 * - `recent(name, ttlMs)`: keys seen lately (RecentKeys).
 */
export class RateLimitStores implements RateLimitStoreStatus {
  private readonly redis: GuardedRedis | undefined;
  private readonly prefix: string;

  constructor(
    config: Pick<Config, 'redisUrl' | 'rateLimitRedisPrefix' | 'rateLimitRedisTimeoutMs' | 'rateLimitRedisBreakerMs'>,
    logger: Logger,
  ) {
    this.prefix = config.rateLimitRedisPrefix;
    if (!config.redisUrl) return;
    this.redis = new GuardedRedis({
      url: config.redisUrl,
      commandTimeoutMs: config.rateLimitRedisTimeoutMs,
      breakerMs: config.rateLimitRedisBreakerMs,
      logger,
      label: 'rate-limit store (Redis)',
    });
  }

  state(): 'ok' | 'fail' | undefined {
    return this.redis?.state();
  }

  /** An express-rate-limit store for one limit, initialised with its window; it never rejects. */
  store(name: string, windowMs: number): Store {
    const options = { windowMs } as Options;
    const store: Store = this.redis ? new GuardedRedisStore(this.redis, `${this.prefix}${name}:`) : new MemoryStore();
    void store.init?.(options);
    return store;
  }

  /** A counter of whole amounts per key over `windowMs` windows. */
  counter(name: string, windowMs: number): WindowCounter {
    return this.redis ? new RedisWindowCounter(this.redis, `${this.prefix}${name}:`, windowMs) : new MemoryWindowCounter(windowMs);
  }

  /** Keys marked within the last `ttlMs`. */
  recent(name: string, ttlMs: number): RecentKeys {
    return this.redis ? new RedisRecentKeys(this.redis, `${this.prefix}${name}:`, ttlMs) : new MemoryRecentKeys(ttlMs);
  }

  async close(): Promise<void> {
    await this.redis?.close();
  }
}

/**
 * rate-limit-redis's store over the guarded connection. That store loads its scripts when it is initialised and
 * keeps a failed load for good, so it is made once Redis answers and made again after a failure. Nothing here
 * rejects: while Redis cannot answer a request counts as the first of its window (it passes) — express-rate-limit
 * would otherwise print a line per request ("error from store"), and GuardedRedis already logs the outage.
 */
class GuardedRedisStore implements Store {
  private store: Promise<RedisStore> | undefined;
  private options: Options | undefined;
  readonly localKeys = false;

  constructor(
    private readonly redis: GuardedRedis,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.options = options;
  }

  private ready(): Promise<RedisStore> {
    if (this.store) return this.store;
    const made = (async () => {
      const store = new RedisStore({ prefix: this.prefix, sendCommand: this.redis.sendCommand });
      await store.init(this.options!);
      return store;
    })();
    this.store = made;
    // A failed load is forgotten, so the next call tries again.
    made.catch(() => {
      if (this.store === made) this.store = undefined;
    });
    return made;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    try {
      return await (await this.ready()).increment(key);
    } catch {
      return { totalHits: 0, resetTime: undefined };
    }
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    try {
      return await (await this.ready()).get(key);
    } catch {
      return undefined;
    }
  }

  async decrement(key: string): Promise<void> {
    try {
      await (await this.ready()).decrement(key);
    } catch {
      // as increment: the count is lost, the request was not refused
    }
  }

  async resetKey(key: string): Promise<void> {
    try {
      await (await this.ready()).resetKey(key);
    } catch {
      // idem
    }
  }
}
