/**
 * The few laws a request explores, kept for the requests that follow: at most `maxEntries`, and at most `maxBytes`
 * as `weigh` counts them, the oldest dropped first. Bounded whatever the requests, so that a worker's memory is too.
 */
export class Memo<T> {
  private readonly entries = new Map<string, { value: T; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes = Infinity,
    private readonly weigh: (value: T) => number = () => 0,
  ) {}

  /** The value kept under `key`, made and kept when missing. */
  get(key: string, make: () => T): T {
    return this.entries.get(key)?.value ?? this.set(key, make());
  }

  /** Keeps `value` under `key` (replacing what was there), dropping the oldest entries to make room. */
  set(key: string, value: T): T {
    this.delete(key);
    const bytes = this.weigh(value);
    while (this.entries.size > 0 && (this.entries.size >= this.maxEntries || this.bytes + bytes > this.maxBytes)) {
      this.delete(this.entries.keys().next().value!);
    }
    if (bytes <= this.maxBytes) {
      this.entries.set(key, { value, bytes });
      this.bytes += bytes;
    }
    return value;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
