// The entry of the compute pool's worker threads (piscina loads it by file name and calls the export a task names).
// Each task runs synchronously on this thread; what it cost is measured here, where it was spent.
import { setPriority } from 'node:os';
import { evaluateFeasibility, type FeasibilityInput, type FeasibilityResult } from '../services/feasibility.js';
import { InvalidInputError, ProblemError } from '../services/errors.js';
import type { ProblemSlug } from '../problems.js';

// Below the event loop's priority (nice 10, as bcrypt's threads): on Linux a thread's nice value is its own, so the
// main thread, which answers every cheap request, keeps the cores it needs while computations run.
try {
  setPriority(10);
} catch {
  // not permitted here: the computation runs at the process's priority
}

/** A domain refusal as data: an Error's class and members do not survive the trip between threads. */
export interface SentProblem {
  slug: ProblemSlug;
  detail: string | undefined;
  extensions: Record<string, unknown>;
  retryAfterMs: number | undefined;
  fields?: InvalidInputError['fields'];
}

/** What a task answers: its value or its refusal, and the CPU time it took on this thread in milliseconds. */
export type Outcome<T> = { cpuMs: number; value: T; problem?: undefined } | { cpuMs: number; value?: undefined; problem: SentProblem };

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

function measured<I, T>(compute: (input: I) => T): (input: I) => Outcome<T> {
  return (input) => {
    const start = threadCpuMs();
    try {
      const value = compute(input);
      return { cpuMs: threadCpuMs() - start, value };
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error; // an Error's message reaches the pool; it is an internal error
      const problem: SentProblem = {
        slug: error.slug,
        detail: error.detail,
        extensions: error.extensions,
        retryAfterMs: error.retryAfterMs,
      };
      if (error instanceof InvalidInputError) problem.fields = error.fields;
      return { cpuMs: threadCpuMs() - start, problem };
    }
  };
}

/** Goal feasibility (src/services/feasibility.ts over the engine in src/feasibility/): pure, synchronous, bounded per request. */
export const feasibility: (input: FeasibilityInput) => Outcome<FeasibilityResult> = measured(evaluateFeasibility);
