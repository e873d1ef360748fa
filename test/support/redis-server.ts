import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './server.js';

/** A Redis of a test's own, so it can be frozen or killed without touching the machine's shared one. */
export interface OwnRedis {
  url: string;
  port: number;
  /** SIGSTOP: the server hangs (connections stay open, nothing answers). */
  freeze(): void;
  /** SIGCONT after a freeze. */
  thaw(): void;
  /** SIGKILL: the server is gone (connections refused). Resolves once it has exited. */
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** `redis-server` on a free port, without persistence; resolves once it accepts connections. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (/Ready to accept connections/.test(seen)) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.resume();
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code} before it was ready: ${seen}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

// A run that ends early (a failed hook, mocha's exit) must not leave a frozen redis-server behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
