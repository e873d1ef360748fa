import { createTestDatabase, testBackend } from '../support/database.js';
import { startServiceProcess, type ServiceProcess } from '../support/process.js';
import type { Credentials } from './fuzzer.js';

/** Lines of the service's log kept for a report: its errors (a 5xx, a crash), the first few. */
const ERRORS_KEPT = 20;

export interface FuzzTarget {
  service: ServiceProcess;
  port: number;
  /** Where curl reproductions point. */
  baseUrl: string;
  backend: 'postgres' | 'embedded';
  credentials: Credentials;
  /** The service's error-level log lines so far (the first few), to read beside a finding. */
  errors: string[];
  stop(): Promise<void>;
}

async function token(baseUrl: string, basic: string, scope: string): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(basic).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  if (response.status !== 200) throw new Error(`the demo client got no token for "${scope}": ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * The service to fuzz, in a process of its own started as `make run` starts it (`--demo`: a client holding every
 * scope, an account with a policy), so the watch measures exactly the service: on PostgreSQL when one answers (a
 * database of its own), else on a fresh embedded one. `main` is `src/main.ts` (through tsx) or the compiled
 * `dist/src/main.js`.
 */
export async function startFuzzTarget(main: string): Promise<FuzzTarget> {
  const backend = await testBackend();
  const database = backend === 'postgres' ? await createTestDatabase() : undefined;
  const service = await startServiceProcess(
    {
      DATABASE_URL: database?.url ?? '',
      // One process (the watch reads one RSS) and no shared store: what a fresh `make run` is.
      WEB_CONCURRENCY: '1',
      REDIS_URL: '',
      // The fuzzer sends thousands of requests from one address; the limits have their own tests.
      RATE_LIMIT_PER_MINUTE: '1000000',
      TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
      TOKEN_FAILURE_LIMIT_PER_MINUTE: '1000000',
      TOKEN_CLIENT_FAILURE_LIMIT_PER_MINUTE: '1000000',
      // As the limits: the CPU budget has its own tests, and one client sends every generated feasibility request.
      CPU_BUDGET_MS_PER_MINUTE: '1000000',
      // And the quotas per account: one account takes every generated call (test/http/account-quotas.test.ts tests them).
      ACCOUNT_IDEAS_PER_MINUTE: '1000000',
      ACCOUNT_POLICIES_PER_MINUTE: '1000000',
      ACCOUNT_REPORTS_PER_MINUTE: '1000000',
      ACCOUNT_WEBHOOK_TESTS_PER_MINUTE: '1000000',
    },
    undefined,
    main,
  ).catch(async (error: unknown) => {
    await database?.drop();
    throw error;
  });
  const errors: string[] = [];
  let partial = '';
  // Read every line (an unread pipe would stall the service once full) and keep the error-level ones.
  service.child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    // A declared 503 (no assistant configured, busy) is logged at error level too; it is an answer, not a failure.
    for (const line of lines)
      if (/"level":(50|60)/.test(line) && !line.includes('"status":503') && errors.length < ERRORS_KEPT) errors.push(line);
  });
  const exited = new Promise<void>((resolve) =>
    service.child.exitCode !== null || service.child.signalCode !== null ? resolve() : service.child.once('exit', () => resolve()),
  );
  const stop = async () => {
    service.stop();
    await exited;
    await database?.drop();
  };
  try {
    const baseUrl = `http://127.0.0.1:${service.port}`;
    const { id, secret } = service.credentials();
    const basic = `${id}:${secret}`;
    const credentials = { full: await token(baseUrl, basic, 'read write trade mcp'), readOnly: await token(baseUrl, basic, 'read'), basic };
    return { service, port: service.port, baseUrl, backend, credentials, errors, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
