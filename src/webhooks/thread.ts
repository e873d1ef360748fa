// The webhook thread's entry (threaded.ts starts it): the delivery worker on a pool of its own, at a lower CPU
// priority than the thread that answers requests.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { openDatabase } from '../../db/connect.js';
import { systemClock } from '../clock.js';
import { stopTracing } from '../observability/tracing.js';
import type { ThreadData } from './threaded.js';
import { WebhookWorker } from './worker.js';

const data = workerData as ThreadData;

/**
 * Linux schedules each thread on its own, and `setpriority` on a thread's id changes that thread only: the requests'
 * thread keeps its priority and goes first when the cores are busy; deliveries take what is left (with nice 10, about
 * a tenth of a busy core's time, never nothing). Elsewhere the thread keeps the process's priority.
 */
function lowerPriority(nice: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

const logger = pino({ level: data.logLevel }).child({ thread: 'webhooks' });
// A thread has OpenTelemetry's globals of its own: its deliveries' spans need an SDK here too (docs/tracing.md).
if (data.tracing) await (await import('../observability/tracing-sdk.js')).startTracing({ instrument: false });
const lowered = lowerPriority(data.nice);
const db = await openDatabase({ ...data.open, poolSize: data.poolSize });
// Its connections open before the service says ready, not under the first requests (nothing here can fail for
// good: a database not answering yet is the worker's to retry, turn after turn).
await db.warm().catch((error: unknown) => logger.warn({ err: error }, 'the webhook thread could not open its connections yet'));
// Its attempts are counted by the parent, whose metrics the scraper reads (this thread records none of its own).
const worker = new WebhookWorker(db.kysely, systemClock, data.options, logger, (attempt) => parentPort!.postMessage({ attempt }));
worker.start();
logger.debug({ lowered, nice: data.nice }, 'webhook thread started');
parentPort!.postMessage({ started: true });

parentPort!.on('message', (message: { stop?: true }) => {
  if (!message.stop) return;
  void (async () => {
    try {
      await worker.stop();
    } finally {
      await db.close().catch(() => {});
      await stopTracing();
      parentPort!.postMessage({ stopped: true });
      parentPort!.close();
    }
  })();
});
