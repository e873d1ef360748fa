import { activeMetrics } from '../observability/metrics.js';

/**
 * Refusals answered at a pace. A client past a limit is told so at once (429 with `Retry-After`); one that keeps
 * sending regardless costs the instance a request's work for each refusal, and a tenant with many addresses could spend
 * a core on refusals alone, slowing every other tenant's requests queued behind them on the same event loop. So each
 * client address gets `burst` refusals answered at once and then at most `perSecond` a second: a refusal beyond that is
 * held until its turn (GCRA, the generic cell rate algorithm: the address's "theoretical arrival time" advances by
 * 1/perSecond per refusal) and then answered as it would have been. A client that waits for `Retry-After` never meets
 * it; one that retries at once waits at most `maxDelayMs` for each further refusal, and over keep-alive connections
 * sends only as fast as its refusals come back. Per instance, in memory: the work it saves is this instance's, so it
 * needs no shared counter (and no Redis round trip, which is half of what a refusal costs). Bounded: at most `maxHeld`
 * answers held at once (past that, answered at once) and `maxAddresses` remembered.
 *
 * Written here rather than with express-slow-down: that middleware delays every request past a count, answered or not,
 * and counts each in a store of its own (a Redis round trip for every request); this delays only refusals, which the
 * limits have already counted.
 */
export class RefusalPacing {
  /** Per address, the theoretical arrival time (ms, performance.now()) of its next refusal. */
  private readonly arrivals = new Map<string, number>();
  private held = 0;
  private readonly interval: number;

  constructor(
    perSecond: number,
    private readonly burst = perSecond,
    private readonly maxDelayMs = 2000,
    private readonly maxHeld = 10_000,
    private readonly maxAddresses = 100_000,
  ) {
    this.interval = 1000 / perSecond;
  }

  /** How long to hold this address's refusal (ms; 0 to answer it now), counting it. */
  delay(address: string, now = performance.now()): number {
    const allowance = this.burst * this.interval;
    const arrival = Math.max(this.arrivals.get(address) ?? 0, now);
    const delay = Math.min(Math.max(0, arrival + this.interval - allowance - now), this.maxDelayMs);
    if (!this.arrivals.has(address) && this.arrivals.size >= this.maxAddresses) this.forgetPast(now);
    // Never more than the longest hold ahead: a client sending without pause cannot push its turn out of reach.
    this.arrivals.set(address, Math.min(arrival + this.interval, now + allowance + this.maxDelayMs));
    if (delay === 0 || this.held >= this.maxHeld) return 0;
    return delay;
  }

  /** Runs `answer` now, or after this address's turn (see delay). */
  answer(address: string, answer: () => void): void {
    const delay = this.delay(address);
    if (delay === 0) return answer();
    this.held++;
    activeMetrics()?.refusalsHeld.inc();
    setTimeout(() => {
      this.held--;
      answer();
    }, delay);
  }

  /** Refusals held now (for the metrics and tests). */
  get holding(): number {
    return this.held;
  }

  /** Forgets the addresses whose turn has come (as if never refused); all of them when that is not enough. */
  private forgetPast(now: number): void {
    for (const [address, arrival] of this.arrivals) if (arrival <= now) this.arrivals.delete(address);
    if (this.arrivals.size >= this.maxAddresses) this.arrivals.clear();
  }
}
