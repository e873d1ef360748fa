import bcrypt from 'bcrypt';
import { ProblemError } from '../problems.js';

/**
 * At most `limit` tasks at a time; a task that cannot start within `waitMs` is refused (503 with Retry-After) rather
 * than queued without end. Written here: the well-kept limiters (p-limit and the like) queue without a bound or a
 * deadline, which is exactly what must not happen under a flood.
 */
class BoundedGate {
  private active = 0;
  private readonly waiting: { start: () => void; timer: NodeJS.Timeout }[] = [];

  constructor(
    private readonly limit: number,
    private readonly waitMs: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const entry = {
          start: () => {
            clearTimeout(entry.timer);
            resolve();
          },
          timer: setTimeout(() => {
            this.waiting.splice(this.waiting.indexOf(entry), 1);
            reject(new ProblemError('service-unavailable', 'Too many credential checks are running at once; retry shortly.', {}, { 'Retry-After': '1' }));
          }, this.waitMs),
        };
        this.waiting.push(entry);
      });
    } else {
      this.active++;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next.start();
      else this.active--;
    }
  }
}

/**
 * Hashing and checking of human passwords and client secrets: the one place bcrypt runs, so its cost to the
 * process (libuv's thread pool) is governed in one place — at most `concurrency` bcrypt operations at a time (of the
 * pool's four threads), each waiting at most `waitMs` for its turn.
 */
export class SecretHasher {
  // A real hash to compare against when there is no stored one, so "unknown" and "wrong" cost the same time.
  private readonly dummyHash: string;
  private readonly gate: BoundedGate;

  constructor(
    private readonly cost: number,
    concurrency = 2,
    waitMs = 2000,
  ) {
    this.dummyHash = bcrypt.hashSync('not-a-secret', cost);
    this.gate = new BoundedGate(concurrency, waitMs);
  }

  hash(secret: string): Promise<string> {
    return this.gate.run(() => bcrypt.hash(secret, this.cost));
  }

  /** Whether `secret` matches `hash`; with no hash it still spends the time of a comparison and answers false. */
  async verify(secret: string, hash: string | null | undefined): Promise<boolean> {
    const matches = await this.gate.run(() => bcrypt.compare(secret, hash ?? this.dummyHash));
    return matches && Boolean(hash);
  }
}
