import type { Logger } from 'pino';
import { createClient, ErrorReply } from 'redis';

/** Refused without asking Redis: not connected, or the breaker is open. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** Redis did not answer within the command timeout. */
export class RedisTimeoutError extends Error {
  override name = 'RedisTimeoutError';
}

export interface GuardedRedisOptions {
  url: string;
  /** Longest wait for one command's answer. */
  commandTimeoutMs: number;
  /** How long no command is sent once the breaker has opened (then one PING probes). */
  breakerMs: number;
  logger: Logger;
  /** What Redis is for, in log lines: "rate-limit store (Redis)". */
  label: string;
}

/** Consecutive failures that open the breaker: one slow answer is a blip, three in a row an outage. */
const FAILURES_TO_OPEN = 3;
/** A PING this often, so a hang is noticed (and readiness says so) without traffic. */
const HEARTBEAT_MS = 500;
const LOG_EVERY_MS = 60_000;
/** Commands node-redis may hold unanswered; past it a command fails at once instead of queueing on a hung socket. */
const MAX_PENDING = 1000;
const CLOSE_WAIT_MS = 500;

/**
 * One Redis connection whose every command is bounded: it answers within `commandTimeoutMs` or fails, and after
 * FAILURES_TO_OPEN failures in a row a breaker refuses commands at once for `breakerMs` before a PING probes again.
 * node-redis alone waits forever on a server that hangs (SIGSTOP, a stalled network: the socket stays open), and
 * with `disableOfflineQueue` it already fails at once on one that is gone. Callers treat any rejection as "Redis
 * cannot say now" and fail open. Outages are logged at most once a minute, their end once.
 */
export class GuardedRedis {
  private readonly client: ReturnType<typeof createClient>;
  private readonly heartbeat: NodeJS.Timeout;
  private failuresInARow = 0;
  private lastFailed = false;
  private openUntil: number | undefined;
  private probing = false;
  private lastLoggedAt = -Infinity;
  private outageLogged = false;

  constructor(private readonly options: GuardedRedisOptions) {
    this.client = createClient({
      url: options.url,
      disableOfflineQueue: true,
      commandsQueueMaxLength: MAX_PENDING,
      socket: { connectTimeout: 1000, reconnectStrategy: (retries) => Math.min(200 * 2 ** retries, 5000) },
    });
    this.client.on('error', (error: Error) => this.failed(error));
    // A (re)connection completed its handshake: the server answers.
    this.client.on('ready', () => this.succeeded());
    this.client.connect().catch((error: Error) => this.failed(error));
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS).unref();
  }

  /**
   * Sends one command (`['INCRBY', key, '5']`): its reply, an ErrorReply when Redis answered with an error, or a
   * RedisUnavailableError / RedisTimeoutError / connection error when it cannot answer now. Never waits longer
   * than the command timeout.
   */
  command<T = unknown>(args: readonly string[]): Promise<T> {
    if (!this.client.isReady) return Promise.reject(new RedisUnavailableError(`${this.options.label} is not connected`));
    if (this.openUntil !== undefined) {
      if (Date.now() >= this.openUntil) this.probe();
      return Promise.reject(new RedisUnavailableError(`${this.options.label} is failing; not asked again until a probe answers`));
    }
    return this.send<T>(args);
  }

  /** `command` in the variadic form rate-limit-redis's `sendCommand` option takes. */
  readonly sendCommand = (...args: string[]) => this.command<never>(args);

  /** 'fail' while not connected, while the breaker is open, or when the last command failed. */
  state(): 'ok' | 'fail' {
    return this.client.isReady && this.openUntil === undefined && !this.lastFailed ? 'ok' : 'fail';
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    if (!this.client.isOpen) return;
    // close() waits for pending replies, which a hung server never sends, and for a reconnection that may not come.
    if (this.state() === 'ok')
      await Promise.race([this.client.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    if (this.client.isOpen) this.client.destroy();
  }

  private send<T>(args: readonly string[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(
        // Decided after the poll phase: when this process was busy past the timeout, an answer that had meanwhile
        // arrived is read first, and a late timer does not count as Redis's failure.
        () =>
          setImmediate(() => {
            if (settled) return;
            settled = true;
            const error = new RedisTimeoutError(`${this.options.label} did not answer within ${this.options.commandTimeoutMs} ms`);
            this.failed(error);
            reject(error);
          }),
        this.options.commandTimeoutMs,
      );
      this.client.sendCommand(args).then(
        (reply) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          this.succeeded();
          resolve(reply as T);
        },
        (error: Error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          // An error reply (NOSCRIPT, WRONGTYPE) is an answer: the server works.
          if (error instanceof ErrorReply) this.succeeded();
          else this.failed(error);
          reject(error);
        },
      );
    });
  }

  private beat(): void {
    if (!this.client.isReady) return; // node-redis reconnects by itself; 'ready' closes the breaker
    if (this.openUntil === undefined) this.send(['PING']).catch(() => {});
    else if (Date.now() >= this.openUntil) this.probe();
  }

  private probe(): void {
    if (this.probing) return;
    this.probing = true;
    this.send(['PING'])
      .catch(() => {})
      .finally(() => (this.probing = false));
  }

  private succeeded(): void {
    this.failuresInARow = 0;
    this.lastFailed = false;
    this.openUntil = undefined;
    if (this.outageLogged) {
      this.outageLogged = false;
      this.options.logger.info(`${this.options.label} is back`);
    }
  }

  private failed(error: Error): void {
    this.lastFailed = true;
    this.failuresInARow++;
    // A failed probe reopens at once; otherwise the breaker opens after FAILURES_TO_OPEN in a row.
    if (this.openUntil !== undefined || this.failuresInARow >= FAILURES_TO_OPEN) this.openUntil = Date.now() + this.options.breakerMs;
    const now = Date.now();
    if (now - this.lastLoggedAt < LOG_EVERY_MS) return;
    this.lastLoggedAt = now;
    this.outageLogged = true;
    this.options.logger.error({ err: error }, `${this.options.label} unavailable: requests pass unlimited until it is back`);
  }
}
