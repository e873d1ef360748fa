// HAProxy for `make cluster`: deploy/haproxy.cfg as it stands, its addresses given in the environment, run in the
// foreground as the haproxy account when this is root; its state read from its runtime API (a unix socket).
import { chownSync, copyFileSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { account, answers, isRoot, Managed, waitFor } from './processes.js';

export interface ProxyOptions {
  apiPort: number;
  dashboardPort: number;
  statsPort: number;
  /** Each instance's API and dashboard address (host:port), in order: ias1, ias2, ias3. */
  instances: { api: string; dashboard: string }[];
  dir: string;
  log: string;
}

export interface Proxy {
  process: Managed;
  /** The environment this run gives deploy/haproxy.cfg. */
  env: Record<string, string>;
  /** Each API server's state as HAProxy sees it (`UP`, `DOWN`, `UP 1/2` while changing, `MAINT`), by name. */
  states(): Promise<Record<string, string>>;
  /** What the API backend counted so far: retries, redispatches to another instance, connection and response errors. */
  retries(): Promise<{ retries: number; redispatches: number; errors: number }>;
}

/** One command to HAProxy's runtime API, and its whole answer. */
export function runtime(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const connection = connect(socket);
    connection.setEncoding('utf8');
    connection.on('data', (chunk: string) => (answer += chunk));
    connection.once('error', reject);
    connection.once('end', () => resolve(answer));
    connection.write(`${command}\n`);
  });
}

export async function startProxy(options: ProxyOptions): Promise<Proxy> {
  const runAs = isRoot() ? account('haproxy') : undefined;
  mkdirSync(options.dir, { recursive: true });
  if (runAs) chownSync(options.dir, runAs.uid, runAs.gid);
  const socket = join(options.dir, 'admin.sock');
  // A copy in its own directory: the checkout may be one the haproxy account cannot read (a CI clone under a
  // mkdtemp directory, mode 0700, was refused: "Cannot open configuration file").
  const config = join(options.dir, 'haproxy.cfg');
  copyFileSync('deploy/haproxy.cfg', config);
  if (runAs) chownSync(config, runAs.uid, runAs.gid);
  const env: Record<string, string> = {
    IAS_API_BIND: `:${options.apiPort}`,
    IAS_DASHBOARD_BIND: `:${options.dashboardPort}`,
    IAS_STATS_BIND: `127.0.0.1:${options.statsPort}`,
    IAS_HAPROXY_SOCKET: socket,
  };
  options.instances.forEach((instance, i) => {
    env[`IAS_${i + 1}_API`] = instance.api;
    env[`IAS_${i + 1}_DASHBOARD`] = instance.dashboard;
  });
  const haproxy = new Managed('haproxy', {
    command: 'haproxy',
    // -db: in the foreground, no daemon; the checks' state starts DOWN until two answers say ready.
    args: ['-db', '-f', config],
    cwd: options.dir,
    env: { ...process.env, ...env },
    log: options.log,
    as: runAs,
  });
  await waitFor('HAProxy to listen', () => answers(options.apiPort), 10_000, haproxy);
  const stat = async () => {
    const csv = await runtime(socket, 'show stat');
    const [header, ...rows] = csv.replace(/^# /, '').trim().split('\n');
    const columns = header!.split(',');
    return rows.map((line) => {
      const cells = line.split(',');
      return (name: string) => cells[columns.indexOf(name)] ?? '';
    });
  };
  const states = async () => {
    const result: Record<string, string> = {};
    for (const row of await stat()) if (row('pxname') === 'api' && /^ias\d+$/.test(row('svname'))) result[row('svname')] = row('status');
    return result;
  };
  const retries = async () => {
    const backend = (await stat()).find((row) => row('pxname') === 'api' && row('svname') === 'BACKEND');
    const number = (name: string) => Number(backend?.(name) || 0);
    return { retries: number('wretr'), redispatches: number('wredis'), errors: number('econ') + number('eresp') };
  };
  return { process: haproxy, env, states, retries };
}
