// The entry of the compute pool's worker threads (piscina loads it by file name and calls the export a task names).
// Each task runs synchronously on this thread; what it cost is measured here, where it was spent.
import { setPriority } from 'node:os';
import { computeFeasibility, type Feasibility, type Goal } from '../feasibility/index.js';

// Below the event loop's priority (nice 10, as bcrypt's threads): on Linux a thread's nice value is its own, so the
// main thread, which answers every cheap request, keeps the cores it needs while computations run.
try {
  setPriority(10);
} catch {
  // not permitted here: the computation runs at the process's priority
}

/** What a task answers: its value and the CPU time it took on this thread in milliseconds. */
export interface Outcome<T> {
  cpuMs: number;
  value: T;
}

/**
 * This thread's CPU time in ms. Node 20 cannot read a thread's CPU time (process.threadCpuUsage arrived in 22.19 and
 * 23.9); there it is the time elapsed on this thread, which a synchronous computation spends all on the CPU unless
 * the system gives its core to another thread meanwhile — never less than the CPU time.
 */
const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.bind(process);
const threadCpuMs: () => number = threadCpuUsage
  ? () => {
      const { user, system } = threadCpuUsage();
      return (user + system) / 1000;
    }
  : () => performance.now();

// A task that throws (a bug: the engine refuses nothing the use case admitted) rejects in the pool, an internal error.
function measured<I, T>(compute: (input: I) => T): (input: I) => Outcome<T> {
  return (input) => {
    const start = threadCpuMs();
    const value = compute(input);
    return { cpuMs: threadCpuMs() - start, value };
  };
}

/** Goal feasibility's engine (src/feasibility/) on a goal the use case resolved (src/services/feasibility.ts): pure, synchronous, bounded. */
export const feasibility: (goal: Goal) => Outcome<Feasibility> = measured(computeFeasibility);
