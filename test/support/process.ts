import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server.js';

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
    child.once('exit', (code) => reject(new Error(`exited with ${code} before ${pattern}: ${seen}`)));
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  /** What it printed up to "serving": the demo credentials among it. */
  output: string;
  credentials(): { id: string; secret: string };
  stop(): void;
}

/** `src/main.ts --demo` on a fresh embedded database, as `make run` starts it. */
export async function startServiceProcess(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ias-process-'));
  const port = await freePort();
  const dashboardPort = await freePort();
  // node itself with tsx as a loader: one process, so killing it stops the server (the tsx wrapper would leave
  // its child running, holding the test runner's output open).
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--demo'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DASHBOARD_PORT: String(dashboardPort), DATA_DIR: dataDir, DATABASE_URL: '', BASE_URL: '', LOG_LEVEL: 'info', BCRYPT_COST: '4', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const output = await waitForOutput(child, /"msg":"serving"/);
  return {
    child,
    port,
    output,
    credentials: () => ({ id: /CLIENT_ID=(\S+)/.exec(output)![1]!, secret: /CLIENT_SECRET=(\S+)/.exec(output)![1]! }),
    stop() {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
