import { execFile, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

/** A request the watch ended because it was not answered within the deadline. */
export class DeadlineMissed extends Error {}

export interface WatchLimits {
  /** The service's resident set must stay under this many bytes; a sample above it is a finding. */
  rssBytes: number;
  /** A request not answered within this many milliseconds is ended and is a finding (a deadline, not a speed target). */
  deadlineMs: number;
  /** How often the service's RSS is read. */
  sampleEveryMs?: number;
}

export interface WatchFinding {
  problem: string;
  /** curl reproductions: the request itself, or the ones in flight and just sent when the finding was made. */
  requests: string[];
}

const MiB = 2 ** 20;
const mib = (bytes: number) => `${Math.round(bytes / MiB).toLocaleString('en')} MiB`;
/** Consecutive missed deadlines after which the service is taken to have stopped answering (each costs a deadline). */
const MISSES_TO_HALT = 3;
/** Requests named as "just sent" beside those in flight when memory crosses the bound. */
const RECENT = 3;

/** The resident set of a process in bytes, or undefined once it is gone: /proc on Linux, ps(1) elsewhere. */
export async function rssOf(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && process.platform === 'linux') return undefined;
  }
  return new Promise((resolve) =>
    execFile('ps', ['-o', 'rss=', '-p', String(pid)], (error, stdout) =>
      resolve(error || !stdout.trim() ? undefined : Number(stdout.trim()) * 1024),
    ),
  );
}

/**
 * Watches a service while it is fuzzed: every request goes through `exchange`, which ends it at the deadline and
 * remembers what is in flight; the service's RSS is sampled throughout, and a sample over the bound names the
 * requests in flight and just sent. Past twice the bound the service is killed, so that one runaway request cannot
 * take the machine's memory (issue 20 measured one that reached 24 GB). `halted` says when the run cannot go on.
 */
export class ServiceWatch {
  readonly findings: WatchFinding[] = [];
  requests = 0;
  maxRssBytes = 0;
  slowest = { ms: 0, curl: '' };
  halted: string | undefined;
  private readonly inFlight = new Set<string>();
  private readonly recent: string[] = [];
  private overBound: WatchFinding | undefined;
  private peakBytes = 0;
  private misses = 0;
  private stopped = false;
  private readonly stopping = new AbortController();
  private readonly sampling: Promise<void>;

  constructor(
    private readonly service: ChildProcess,
    readonly limits: WatchLimits,
  ) {
    service.once('exit', (code, signal) => {
      if (this.stopped) return;
      const how = signal ? `was killed (${signal})` : `exited with ${code}`;
      this.halt(this.halted ?? `the service ${how}`, this.suspects());
    });
    this.sampling = this.sampleUntilStopped();
  }

  /** Sends one request (`send` must honour the signal); a request not answered by the deadline throws DeadlineMissed. */
  async exchange<T>(curl: string, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.halted) throw new Error(`not sent: ${this.halted}`);
    const deadline = new AbortController();
    const missed = new DeadlineMissed(`not answered within ${this.limits.deadlineMs} ms (the deadline)`);
    const timer = setTimeout(() => deadline.abort(missed), this.limits.deadlineMs);
    const started = performance.now();
    this.inFlight.add(curl);
    this.recent.push(curl);
    if (this.recent.length > RECENT) this.recent.shift();
    this.requests++;
    try {
      const answer = await send(deadline.signal);
      const ms = performance.now() - started;
      if (ms > this.slowest.ms) this.slowest = { ms, curl };
      this.misses = 0;
      return answer;
    } catch (error) {
      if (!deadline.signal.aborted) throw error;
      this.findings.push({ problem: missed.message, requests: [curl] });
      if (++this.misses >= MISSES_TO_HALT) this.halt(`${MISSES_TO_HALT} requests in a row were not answered within the deadline`, []);
      throw missed;
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(curl);
    }
  }

  /** Reads the service's RSS now (the watch also does every `sampleEveryMs`). */
  async sample(): Promise<void> {
    const pid = this.service.pid;
    const rss = pid === undefined || this.service.exitCode !== null || this.service.signalCode !== null ? undefined : await rssOf(pid);
    if (rss === undefined) return;
    this.maxRssBytes = Math.max(this.maxRssBytes, rss);
    if (rss <= this.limits.rssBytes) {
      this.overBound = undefined;
      return;
    }
    if (!this.overBound) {
      this.peakBytes = 0;
      this.overBound = { problem: '', requests: this.suspects() };
      this.findings.push(this.overBound);
    }
    this.peakBytes = Math.max(this.peakBytes, rss);
    this.overBound.problem = `RSS reached ${mib(this.peakBytes)}, over the ${mib(this.limits.rssBytes)} bound`;
    if (rss > 2 * this.limits.rssBytes && !this.halted) {
      this.halted = `the watch killed the service at ${mib(rss)} of RSS (twice the bound)`;
      this.service.kill('SIGKILL');
    }
  }

  /** Stops sampling (before the service is stopped on purpose, so its exit is not a finding). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.sampling;
  }

  summary(): string {
    const slowest = this.slowest.curl ? `slowest answer ${Math.round(this.slowest.ms)} ms: ${this.slowest.curl}` : 'nothing answered';
    return `${this.requests.toLocaleString('en')} requests; max RSS ${mib(this.maxRssBytes)} (bound ${mib(this.limits.rssBytes)}); ${slowest}`;
  }

  /** Every finding with its requests, for an assertion message. */
  report(): string {
    return this.findings.map((f) => [f.problem, ...f.requests.map((r) => `  ${r}`)].join('\n')).join('\n');
  }

  private halt(reason: string, requests: string[]): void {
    this.halted = reason;
    this.findings.push({ problem: reason, requests });
  }

  private suspects(): string[] {
    const inFlight = [...this.inFlight].map((curl) => `in flight: ${curl}`);
    const sent = this.recent
      .filter((curl) => !this.inFlight.has(curl))
      .reverse()
      .map((curl) => `just sent: ${curl}`);
    return [...inFlight, ...sent];
  }

  private async sampleUntilStopped(): Promise<void> {
    while (!this.stopped && this.service.exitCode === null && this.service.signalCode === null) {
      await this.sample();
      await delay(this.limits.sampleEveryMs ?? 100, undefined, { signal: this.stopping.signal }).catch(() => {});
    }
  }
}
