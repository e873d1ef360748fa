import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Feasibility, Goal } from '../feasibility/index.js';
import { ProblemError } from '../problems.js';
import type { Outcome } from './worker.js';

/** The tasks worker.ts exports, by name: what each takes and answers. */
export interface ComputeTasks {
  feasibility: { input: Goal; value: Feasibility };
}
export type TaskName = keyof ComputeTasks;

export interface ComputePoolOptions {
  /** Worker threads (all started with the first task, kept until close). */
  threads: number;
  /** Tasks that may wait for a thread; past `threads + queueLength` admitted at once, a task is refused at once. */
  queueLength: number;
  /** A task not answered by then is abandoned (an internal error: every task is bounded far below it). */
  deadlineMs: number;
}

// The worker entry beside this file: worker.js when compiled (dist/), and from the TypeScript sources (under tsx)
// worker-tsx.mjs, which registers tsx in the thread before it loads worker.ts.
const FROM_SOURCES = extname(fileURLToPath(import.meta.url)) === '.ts';
const WORKER_FILE = fileURLToPath(new URL(FROM_SOURCES ? './worker-tsx.mjs' : './worker.js', import.meta.url));

/**
 * Heavy computations off the event loop, on a pool of worker threads (piscina), so that a cheap request never
 * waits behind one. Admission is bounded here, by a count of the tasks admitted and not yet answered: one beyond
 * `threads + queueLength` is refused at once with 503 service-busy (piscina's own queue bound is set to the same
 * and never reached). The threads start with the first task, not before: processes that never compute (the
 * operator CLI, set-up scripts) start none.
 */
export class ComputePool {
  private pool: Piscina | undefined;
  private admitted = 0;
  private closed = false;

  constructor(private readonly options: ComputePoolOptions) {}

  /** Computations admitted and waiting for a thread (the metrics' compute queue). */
  get waiting(): number {
    return Math.max(0, this.admitted - this.options.threads);
  }

  async run<K extends TaskName>(task: K, input: ComputeTasks[K]['input']): Promise<Outcome<ComputeTasks[K]['value']>> {
    if (this.closed) throw new ProblemError('service-unavailable', 'This instance is shutting down; retry the request.', {}, 1000);
    if (this.admitted >= this.options.threads + this.options.queueLength) {
      throw new ProblemError(
        'service-busy',
        'Every computation slot of this instance is taken; nothing was computed. Retry after Retry-After seconds.',
        {},
        1000,
      );
    }
    this.admitted++;
    try {
      const signal = AbortSignal.timeout(this.options.deadlineMs);
      return (await this.started().run(input, { name: task, signal })) as Outcome<ComputeTasks[K]['value']>;
    } catch (error) {
      if ((error as Error).name === 'AbortError')
        throw new Error(`the ${task} computation was abandoned after ${this.options.deadlineMs} ms`, { cause: error });
      throw error;
    } finally {
      this.admitted--;
    }
  }

  /** Stops the threads (a task still running is abandoned); later tasks are refused with 503. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool?.destroy();
  }

  private started(): Piscina {
    if (this.pool) return this.pool;
    const { threads, queueLength } = this.options;
    this.pool = new Piscina({ filename: WORKER_FILE, minThreads: threads, maxThreads: threads, maxQueue: queueLength + threads });
    // A thread that fails outside a task (its entry cannot load, say) is also reported as the pool's 'error' event,
    // which unheard would end the process. The task that met the failure rejects with it and is answered (and logged)
    // as an internal error; piscina starts a new thread for the next, and a thread that can never start leaves later
    // tasks to the deadline (tests start the pool from the sources and compiled, so a build cannot ship without it).
    this.pool.on('error', () => {});
    return this.pool;
  }
}
