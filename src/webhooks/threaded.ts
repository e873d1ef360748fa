import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Db, OpenOptions } from '../../db/connect.js';
import { tracingOn } from '../observability/tracing.js';
import { recordAttempt, type AttemptObserved, type WebhookWorkerOptions } from './worker.js';

/** What the webhook thread is started with (structured-cloned into it). */
export interface ThreadData {
  open: Pick<OpenOptions, 'databaseUrl' | 'timeouts' | 'preparedStatements'>;
  poolSize: number;
  nice: number;
  logLevel: string;
  options: Omit<WebhookWorkerOptions, 'sender'>;
  /** Whether the process exports traces: the thread then starts an SDK of its own for its deliveries' spans. */
  tracing: boolean;
}

const FROM_SOURCES = extname(fileURLToPath(import.meta.url)) === '.ts';
const THREAD_FILE = fileURLToPath(new URL(FROM_SOURCES ? './thread-tsx.mjs' : './thread.js', import.meta.url));

/** The thread's connections: one turn runs one statement at a time, and a result's write may overlap the next turn. */
const THREAD_POOL_SIZE = 2;
/** The thread's niceness (0 is the process's, 19 the lowest priority). */
export const THREAD_NICE = 10;
/** A thread that died is started again after this long (its deliveries wait in the queue meanwhile; none is lost). */
const RESTART_AFTER_MS = 1000;

/**
 * The webhook worker on a thread of its own (PostgreSQL only: the embedded database lives in the main thread), so that
 * a turn's work — parsing a batch of events, signing and sending them, reading the answers — never holds up a request
 * on the event loop, and at a lower CPU priority, so that on busy cores the requests go first: on the main thread the
 * worker raised the approvals' p99 with endpoints, on its own thread it does not (BENCHMARKS.md, why the code is as it
 * is). The same start()/stop() as WebhookWorker; the queue in the database keeps what the thread has not finished.
 */
export class WebhookThread {
  private worker: Worker | undefined;
  private stopping = false;
  private restart: NodeJS.Timeout | undefined;
  private readonly data: ThreadData;

  constructor(
    db: Db,
    options: Omit<WebhookWorkerOptions, 'sender'>,
    private readonly logger: Logger,
  ) {
    if (!db.open) throw new Error('the webhook thread needs PostgreSQL (the embedded database serves its own thread only)');
    this.data = { open: db.open, poolSize: THREAD_POOL_SIZE, nice: THREAD_NICE, logLevel: logger.level, options, tracing: tracingOn() };
  }

  /** Resolves once the thread has loaded and opened its connections (or has ended: it is then started again). */
  start(): Promise<void> {
    if (this.worker || this.stopping) return Promise.resolve();
    const worker = new Worker(THREAD_FILE, { workerData: this.data });
    this.worker = worker;
    const started = new Promise<void>((resolve) => {
      worker.on('message', (message: { started?: true; attempt?: AttemptObserved }) => {
        if (message.attempt) recordAttempt(message.attempt);
        else if (message.started) resolve();
      });
      worker.once('exit', () => resolve());
    });
    worker.on('error', (error) => this.logger.error({ err: error }, 'the webhook thread failed'));
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      if (this.stopping) return;
      this.logger.error({ code }, `the webhook thread stopped; starting it again in ${RESTART_AFTER_MS} ms`);
      this.restart = setTimeout(() => void this.start(), RESTART_AFTER_MS);
      this.restart.unref();
    });
    return started;
  }

  /** Lets the attempts in flight finish and their results be written (as WebhookWorker.stop), then ends the thread. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restart);
    const worker = this.worker;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.on('message', (message: { stopped?: true }) => {
        if (message.stopped) void worker.terminate();
      });
      worker.postMessage({ stop: true });
    });
    this.worker = undefined;
  }
}
