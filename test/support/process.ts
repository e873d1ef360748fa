import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../db/connect.js';

/** Resolves with everything the child printed once its output matches `pattern`. */
export function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        child.stdout!.off('data', onData);
        resolve(seen);
      }
    };
    child.stdout!.on('data', onData);
    // 'close', not 'exit': a process's last lines can still be in the pipe when its exit is reported (a cluster's
    // workers write to the stdout they share with the primary, then the primary exits at once).
    child.once('close', (code) => reject(new Error(`exited with ${code} before ${pattern}: ${seen}`)));
  });
}

/** An empty folder for DATA_DIR: the embedded database is created in it, as on a first `make run`. */
export const emptyDataDir = () => mkdtempSync(join(tmpdir(), 'ias-process-'));

let cluster: Promise<string> | undefined;

/**
 * A folder for DATA_DIR holding an embedded database cluster that was created and closed, with nothing of the service
 * in it (no migration, no demo): the service migrates and seeds it as on a first start. Creating a cluster (PGlite's
 * initdb) takes seconds; it is done once per test process and copied for each service.
 */
export async function initializedDataDir(): Promise<string> {
  cluster ??= (async () => {
    const dir = emptyDataDir();
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await (await openDatabase({ dataDir: dir })).close();
    return dir;
  })();
  const copy = emptyDataDir();
  cpSync(await cluster, copy, { recursive: true });
  return copy;
}

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  dashboardPort: number;
  dataDir: string;
  /** What it printed up to "serving": the demo credentials among it. */
  output: string;
  /** The demo client, and the demo person's login (no password when another DATA_DIR set it on a shared database). */
  credentials(): { id: string; secret: string; email: string; password: string | undefined };
  /** Kills it and removes its data directory. */
  stop(): void;
  /** SIGTERM, then waits for the exit; the data directory stays (for a restart). */
  terminate(): Promise<number | null>;
}

/**
 * `src/main.ts --demo` on an embedded database, as `make run` starts it, or on env.DATABASE_URL; `main` may name the
 * compiled entry (`dist/src/main.js`, after `make build`) instead. DATA_DIR is `dataDir` if given, else a new folder,
 * on the embedded database one holding a new cluster (initializedDataDir; emptyDataDir for a truly first start).
 */
export async function startServiceProcess(
  env: Record<string, string> = {},
  dataDir?: string,
  main = 'src/main.ts',
): Promise<ServiceProcess> {
  dataDir ??= env.DATABASE_URL ? emptyDataDir() : await initializedDataDir();
  // node itself with tsx as a loader: one process, so killing it stops the server (the tsx wrapper would leave
  // its child running, holding the test runner's output open).
  const child = spawn(process.execPath, [...(main.endsWith('.ts') ? ['--import', 'tsx'] : []), main, '--demo'], {
    env: {
      // The test's own OTEL_* variables, never the environment's: tracing is on only where a test turns it on.
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_'))),
      PORT: '0',
      HOST: '127.0.0.1',
      DASHBOARD_PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      BASE_URL: '',
      DASHBOARD_URL: '',
      LOG_LEVEL: 'info',
      BCRYPT_COST: '4',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const output = await waitForOutput(child, /"msg":"serving"/);
  // Both listeners bind port 0; the "serving" line reports the ports the system chose (no port is probed and freed).
  const serving = JSON.parse(output.split('\n').find((line) => line.includes('"msg":"serving"'))!) as {
    port: number;
    dashboardPort: number;
  };
  const { port, dashboardPort } = serving;
  const printed = (name: string) => new RegExp(`${name}=(\\S+)`).exec(output)?.[1];
  return {
    child,
    port,
    dashboardPort,
    dataDir,
    output,
    credentials: () => ({
      id: printed('CLIENT_ID')!,
      secret: printed('CLIENT_SECRET')!,
      email: printed('EMAIL')!,
      password: printed('PASSWORD'),
    }),
    stop() {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
    terminate() {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return exited;
    },
  };
}
