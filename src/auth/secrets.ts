import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import bcrypt from 'bcrypt';
import { ProblemError } from '../problems.js';

/**
 * bcrypt runs on worker threads of its own at a lower scheduling priority (nice 10; on Linux the nice value is
 * per thread): under a flood of wrong secrets the event loop, which answers every other request, keeps the cores it
 * needs — on libuv's pool the hashing competed with it as an equal, and an authenticated read's p99 under a token
 * flood rose to twice the quiet one. Plain JavaScript evaluated in the worker (no build step between the TypeScript
 * sources and it); where a worker cannot start, the comparison falls back to libuv's pool. Written here rather than
 * with a worker-pool library (piscina and the like): those load a worker file, which the sources run through tsx do
 * not have, and leave the threads' priority alone — what is needed is one job at a time on a reniced thread.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { setPriority } = require('node:os');
const bcrypt = require(workerData.bcrypt);
try { setPriority(10); } catch {}
parentPort.on('message', ({ id, op, secret, argument }) => {
  try {
    const result = op === 'hash' ? bcrypt.hashSync(secret, argument) : bcrypt.compareSync(secret, argument);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

type Job = { op: 'hash'; secret: string; argument: number } | { op: 'compare'; secret: string; argument: string };

/** The thread died (it could not load bcrypt, say): the job is done on libuv's pool instead. */
class ThreadStopped extends Error {}

/** The threads, shared by every hasher of the process (tests make many), started as first needed. */
const threads: BcryptThread[] = [];

class BcryptThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private next = 0;
  /** Whether it has answered a job: a thread that dies before its first cannot run bcrypt here at all. */
  worked = false;

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcrypt: createRequire(import.meta.url).resolve('bcrypt') } });
    this.worker.unref();
    this.worker.on('message', ({ id, result, error }: { id: number; result?: unknown; error?: string }) => {
      const job = this.pending.get(id);
      this.worked = true;
      this.settled(id);
      if (error !== undefined) job?.reject(new Error(error));
      else job?.resolve(result);
    });
    // A thread that fails is dropped: its jobs go to libuv's pool (onThread), the next ones to a new thread.
    const dropped = (error: Error) => {
      const at = threads.indexOf(this);
      if (at >= 0) threads.splice(at, 1);
      if (!this.worked) threadsFailed = true;
      for (const job of this.pending.values()) job.reject(new ThreadStopped(error.message));
      this.pending.clear();
    };
    this.worker.on('error', dropped);
    this.worker.on('exit', () => dropped(new Error('the bcrypt thread stopped')));
  }

  run<T>(job: Job): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      // Referenced while it works (a script awaiting a hash must not exit first), unreferenced when idle.
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, ...job });
    });
  }

  get idle(): boolean {
    return this.pending.size === 0;
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }
}

let threadsFailed = false;

async function onThread<T>(job: Job, wanted: number, fallback: () => Promise<T>): Promise<T> {
  if (threadsFailed) return fallback();
  let thread = threads.find((t) => t.idle);
  if (!thread && threads.length < wanted) {
    try {
      thread = new BcryptThread();
      threads.push(thread);
    } catch {
      threadsFailed = true;
      return fallback();
    }
  }
  if (!thread) return fallback(); // more callers than threads: cannot happen behind the gate, kept safe anyway
  try {
    return await thread.run<T>(job); // busy from here: the job is pending until it settles
  } catch (error) {
    if (error instanceof ThreadStopped) return fallback();
    throw error;
  }
}

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
            reject(new ProblemError('service-unavailable', 'Too many credential checks are running at once; retry shortly.', {}, 1000));
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
 * process is governed in one place — at most `concurrency` bcrypt operations at a time, each on a low-priority thread
 * of its own, each waiting at most `waitMs` for its turn.
 */
export class SecretHasher {
  // A real hash to compare against when there is no stored one, so "unknown" and "wrong" cost the same time.
  private readonly dummyHash: string;
  private readonly gate: BoundedGate;

  constructor(
    private readonly cost: number,
    private readonly concurrency = 2,
    waitMs = 2000,
  ) {
    this.dummyHash = bcrypt.hashSync('not-a-secret', cost);
    this.gate = new BoundedGate(concurrency, waitMs);
  }

  hash(secret: string): Promise<string> {
    return this.gate.run(() =>
      onThread<string>({ op: 'hash', secret, argument: this.cost }, this.concurrency, () => bcrypt.hash(secret, this.cost)),
    );
  }

  /** Whether `secret` matches `hash`; with no hash it still spends the time of a comparison and answers false. */
  async verify(secret: string, hash: string | null | undefined): Promise<boolean> {
    const against = hash ?? this.dummyHash;
    const matches = await this.gate.run(() =>
      onThread<boolean>({ op: 'compare', secret, argument: against }, this.concurrency, () => bcrypt.compare(secret, against)),
    );
    return matches && Boolean(hash);
  }
}
