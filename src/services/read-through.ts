/**
 * A read-through cache of rows that change rarely and are read on every request (a client's generation, an account's
 * broker connection): each value is kept `ttlMs` after it was read, so another instance's change shows within that
 * window, and this instance's own changes show at once (`forget`). Concurrent reads of a key that is not cached share
 * one load: at thousands of reads a second, an expiry would otherwise send as many identical queries to the pool. A
 * load that was forgotten while in flight is answered to its callers but not kept. At most `max` keys are kept; past
 * it the oldest go first (Map order is insertion order).
 */
export class ReadThrough<K, V> {
  private readonly values = new Map<K, { value: V; until: number }>();
  private readonly loads = new Map<K, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly load: (key: K) => Promise<V>,
    private readonly max = 10_000,
  ) {}

  /** The value, without a promise when it is cached (the hot path allocates nothing). */
  get(key: K): V | Promise<V> {
    const now = Date.now();
    const cached = this.values.get(key);
    if (cached !== undefined) {
      if (cached.until > now) return cached.value;
      this.values.delete(key);
    }
    const inFlight = this.loads.get(key);
    if (inFlight) return inFlight;
    const read = this.load(key);
    this.loads.set(key, read);
    read.then(
      (value) => {
        if (this.loads.get(key) !== read) return; // forgotten meanwhile: a change came in between
        this.loads.delete(key);
        if (this.ttlMs <= 0) return;
        if (this.values.size >= this.max) this.values.delete(this.values.keys().next().value as K);
        this.values.set(key, { value, until: now + this.ttlMs });
      },
      () => {
        if (this.loads.get(key) === read) this.loads.delete(key);
      },
    );
    return read;
  }

  /** Drops what is known of `key` (a change made here): the next read loads it again. */
  forget(key: K): void {
    this.values.delete(key);
    this.loads.delete(key);
  }
}
