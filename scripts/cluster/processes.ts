// The processes of `make cluster`: each started in a process group of its own (a Ctrl-C reaches the supervisor only,
// which stops them in order), writing its output to a log file of its own, stopped by its own PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

export interface Account {
  uid: number;
  gid: number;
}

/** The uid and gid of a system account (postgres, haproxy), from /etc/passwd; undefined when there is none. */
export function account(name: string): Account | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Whether this process is root: then the packages that refuse root (pgbouncer) or need none run as their own user. */
export const isRoot = () => process.getuid?.() === 0;

export interface ManagedOptions {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  log: string;
  /** Run as this account (when this process is root). */
  as?: Account;
  /** Its working directory (one that account can enter: HAProxy returns to it after reading its configuration). */
  cwd?: string;
  /** Signal that stops it gracefully (SIGTERM unless said), and how long to wait before SIGKILL. */
  stopSignal?: NodeJS.Signals;
  stopTimeoutMs?: number;
}

const everyone = new Set<Managed>();
process.once('exit', () => {
  // However this process ends, nothing it started outlives it (a stop in order happens before, when it can).
  for (const managed of everyone) managed.kill();
});

/** One child process: started, watched, stopped. `exited` resolves with its exit code (or signal name). */
export class Managed {
  readonly child: ChildProcess;
  readonly exited: Promise<number | string>;
  private stopping = false;

  constructor(
    readonly name: string,
    private readonly options: ManagedOptions,
  ) {
    // The child writes its log itself (nothing passes through this process, which may be busy sending load).
    const out = openSync(options.log, 'a');
    this.child = spawn(options.command, options.args, {
      env: options.env ?? process.env,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ['ignore', out, out],
      detached: true,
      ...(options.as && isRoot() ? { uid: options.as.uid, gid: options.as.gid } : {}),
    });
    closeSync(out);
    everyone.add(this);
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        appendFileSync(options.log, `${name}: ${error.message}\n`);
        resolve(error.message);
      });
      this.child.once('exit', (code, signal) => {
        everyone.delete(this);
        resolve(code ?? signal ?? 'unknown');
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Whether its exit was asked for (a stop), rather than its own doing. */
  get stopped(): boolean {
    return this.stopping;
  }

  /** The stop signal (SIGTERM), then SIGKILL after stopTimeoutMs; resolves once it has exited. */
  async stop(): Promise<number | string> {
    this.stopping = true;
    if (!this.running) return this.exited;
    this.child.kill(this.options.stopSignal ?? 'SIGTERM');
    const timeout = setTimeout(() => this.kill(), this.options.stopTimeoutMs ?? 15_000);
    const code = await this.exited;
    clearTimeout(timeout);
    return code;
  }

  /** CPU time it has used so far (user and system, all its threads), in ms; 0 once it has exited. */
  cpuMs(): number {
    return processCpuMs(this.pid);
  }

  kill(): void {
    this.stopping = true;
    if (this.running) this.child.kill('SIGKILL');
  }

  /** The last `lines` lines of its log (what a failure shows). */
  tail(lines = 20): string {
    try {
      return readFileSync(this.options.log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

/** CPU time a process has used (user and system, all its threads), in ms, from /proc; 0 when it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return 0;
  }
}

/** Whether something accepts TCP connections on host:port. */
export function answers(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Polls `check` every 100 ms until it is true; fails naming `what` after `timeoutMs`, or at once when `process` exits. */
export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number, process?: Managed): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (process && !process.running) throw new Error(`${process.name} exited before ${what}:\n${process.tail()}`);
    if (await check()) return;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${process ? `:\n${process.tail()}` : ''}`);
    await delay(100);
  }
}
