import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './server.js';

/** Why a test cannot start a redis-server of its own (TEST_REDIS=none, or no binary), or undefined when it can. */
export function ownRedisUnavailable(): string | undefined {
  if (process.env.TEST_REDIS === 'none') return 'TEST_REDIS=none';
  if (spawnSync('redis-server', ['--version']).error) return 'no redis-server on PATH';
  return undefined;
}

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

/**
 * `redis-server` on a free port, without persistence; resolves once it accepts connections. Redis cannot report a port
 * it chose itself, so the port is probed first: when another process took it in between, Redis says so and exits, and
 * another port is tried (a bounded number of times).
 */
export async function startOwnRedis(): Promise<OwnRedis> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startOwnRedisOn(port);
    } catch (error) {
      if (attempt >= 5 || !/Address already in use/i.test((error as Error).message)) throw error;
    }
  }
}

async function startOwnRedisOn(port: number): Promise<OwnRedis> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (/Ready to accept connections/.test(seen)) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.resume();
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
