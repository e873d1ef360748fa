import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
 * `src/main.ts --demo` on an embedded database (a fresh one unless `dataDir` is given), as `make run` starts it; `main`
 * may name the compiled entry (`dist/src/main.js`, after `make build`) instead.
 */
export async function startServiceProcess(
  env: Record<string, string> = {},
  dataDir = mkdtempSync(join(tmpdir(), 'ias-process-')),
  main = 'src/main.ts',
): Promise<ServiceProcess> {
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
