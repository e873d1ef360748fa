import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import { solvedChallenge } from '../scripts/solve-challenge.js';
import { emptyDataDir, startServiceProcess, waitForOutput, type ServiceProcess } from './support/process.js';
import { RawConnection } from './support/raw-connection.js';

describe('the service process on the embedded database', () => {
  let service: ServiceProcess;
  let child: ChildProcess;
  let port: number;
  let output: string;

  before(async function () {
    this.timeout(90_000); // a first start of the embedded database takes seconds, more on a busy machine
    service = await startServiceProcess();
    ({ child, port, output } = service);
  });
  after(() => service.stop());

  it('prints a demo client whose credentials obtain a token', async () => {
    const id = /CLIENT_ID=(\S+)/.exec(output)?.[1];
    const secret = /CLIENT_SECRET=(\S+)/.exec(output)?.[1];
    expect(id).to.match(/^ias_client_/);
    const response = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).to.equal(200);
    await response.arrayBuffer();
  });

  it('logs JSON lines with request ids, and never a secret or a token it handled', async () => {
    const { id, secret } = service.credentials();
    const base = `http://127.0.0.1:${port}`;
    const log = waitForOutput(child, /"reqId":"log-check"/);
    const issued = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': 'token-call' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }),
    });
    const { access_token: token } = (await issued.json()) as { access_token: string };
    await (
      await fetch(`${base}/v1/brokers?probe=1`, { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'log-check' } })
    ).arrayBuffer();
    const logged = await log;
    const lines = logged.split('\n').filter((l) => l.startsWith('{'));
    expect(lines.some((l) => JSON.parse(l).reqId === 'token-call')).to.equal(true);
    for (const line of lines) {
      expect(line).to.not.include(secret);
      expect(line).to.not.include(token);
      expect(line).to.not.include('probe=1');
    }
  });

  it('loads no tracing SDK without the OTEL_* variables: a caller’s traceparent is not continued, no trace_id anywhere', async () => {
    expect((JSON.parse(output.split('\n').find((line) => line.includes('"msg":"serving"'))!) as { tracing: unknown }).tracing).to.equal(
      false,
    );
    const log = waitForOutput(child, /"reqId":"untraced"/);
    const refused = await fetch(`http://127.0.0.1:${port}/v1/portfolio`, {
      headers: { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`, 'x-request-id': 'untraced' },
    });
    const problem = (await refused.json()) as Record<string, unknown>;
    expect(problem).to.include({ status: 401, request_id: 'untraced' });
    expect(problem).to.not.have.property('trace_id');
    const line = (await log).split('\n').find((l) => l.includes('"reqId":"untraced"'))!;
    expect(line).to.include('"status":401').and.not.include('trace_id');
  });

  it('answers a malformed path with 400 on the dashboard (its own page) and the API (a problem), logging no error or stack', async () => {
    const dashboard = `http://127.0.0.1:${service.dashboardPort}`;
    const api = `http://127.0.0.1:${port}`;
    let log = '';
    child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    for (const path of ['/%ff', '/assets/%ff', '/developer/clients/%ff/rotate', '/login%e0%80']) {
      for (const method of ['GET', 'POST']) {
        const response = await fetch(`${dashboard}${path}`, {
          method,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: method === 'POST' ? 'a=1' : undefined,
        });
        const page = await response.text();
        expect(response.status, `${method} ${path}`).to.equal(400);
        expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
        expect(response.headers.get('content-security-policy')).to.include("default-src 'self'");
        expect(page).to.include('<title>Bad address · Investment Automation dashboard</title>');
      }
    }
    for (const path of [
      '/v1/orders/%ff',
      '/%ff',
      '/docs/%ff',
      '/docs/assets/%ff',
      '/problems/%ff',
      '/graphql/%ff',
      '/mcp/%ff',
      '/oauth/token%ff',
    ]) {
      const response = await fetch(`${api}${path}`);
      const problem = (await response.json()) as { type: string; status: number; detail: string };
      expect(response.status, path).to.equal(400);
      expect(response.headers.get('content-type')).to.equal('application/problem+json; charset=utf-8');
      expect(problem.type).to.match(/\/problems\/malformed-request$/);
      expect(problem.detail).to.equal('The URL path is not valid percent-encoded UTF-8.');
    }
    // The API logs a request when its response closes; one more, sent last, marks that every line above is written.
    const written = waitForOutput(child, /"reqId":"malformed-done"/);
    await (await fetch(`${api}/healthz`, { headers: { 'x-request-id': 'malformed-done' } })).arrayBuffer();
    await written;
    const lines = log.split('\n').filter((line) => line.includes('%ff') || line.includes('%e0%80'));
    expect(lines).to.have.length.at.least(16);
    for (const line of lines) {
      expect(JSON.parse(line).level, line).to.be.at.most(40);
      expect(line).to.not.match(/stack|URIError/);
    }
  });
});

/**
 * SIGTERM, in a process of its own (no connection of another test left open on it): the request in flight is
 * answered, readiness turns 503 on a connection still open, every body is read to its end, and the process logs its
 * clean "stopped" line and exits 0.
 */
describe('SIGTERM on the service process', () => {
  it('drains: /readyz 503 on an open connection, the in-flight request answered, "stopped" logged, exit 0', async function () {
    this.timeout(90_000); // a first start of the embedded database takes seconds, more on a busy machine
    const service = await startServiceProcess();
    const { child, port } = service;
    const connection = new RawConnection(port);
    let log = '';
    child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      const ready = await connection.get('/readyz');
      expect(ready?.status).to.equal(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      let duringDrain: Awaited<ReturnType<RawConnection['get']>> = null;
      // 100-continue: the server has parsed the request's headers (it is in flight) before the signal is sent.
      const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const headers = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '29', expect: '100-continue' };
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/oauth/token', headers }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.once('continue', () => {
          req.write('grant_type=client_');
          const draining = waitForOutput(child, /draining in-flight requests/);
          child.kill('SIGTERM');
          draining
            .then(async () => {
              duringDrain = await connection.get('/readyz');
              req.end('credentials');
            })
            .catch(reject);
        });
        req.flushHeaders();
      });
      const answered = await inFlight;
      expect(answered.status).to.equal(401);
      expect(JSON.parse(answered.body)).to.include({ error: 'invalid_client' });
      expect(duringDrain, 'an answer on the open connection during the drain').to.not.equal(null);
      expect(duringDrain!.status).to.equal(503);
      expect(duringDrain!.headers.connection).to.equal('close');
      expect(JSON.parse(duringDrain!.body)).to.deep.include({ status: 'not_ready' });
      expect(JSON.parse(duringDrain!.body).checks.requests).to.equal('draining');
      expect(await exited).to.equal(0);
      const lines = log
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; level: number });
      expect(lines.map((line) => line.msg).filter((msg) => msg === 'draining in-flight requests' || msg === 'stopped')).to.deep.equal([
        'draining in-flight requests',
        'stopped',
      ]);
      expect(lines.at(-1)!.msg, 'the last line').to.equal('stopped');
      // The request log's own lines (the 503 is logged at error level, as every 5xx) aside: no error, no forced close.
      const stopping = lines.filter((line) => line.msg !== 'request completed');
      expect(
        stopping.filter((line) => line.level >= 50 || /timeout/.test(line.msg)),
        'no error, no forced close while stopping',
      ).to.deep.equal([]);
    } finally {
      connection.close();
      service.stop();
    }
  });
});

describe('the demo credentials of `make run`', () => {
  it('prints the dashboard and a demo login, keeps both in DATA_DIR (0600), and reuses them on restart without invalidating the first', async function () {
    this.timeout(90_000);
    // A first `make run`: DATA_DIR empty, the embedded database created in it.
    const first = await startServiceProcess({}, emptyDataDir());
    try {
      const before = first.credentials();
      expect(first.output).to.include(`Dashboard: http://localhost:${first.dashboardPort}`);
      expect(before.email).to.equal('demo@example.com');
      const file = join(first.dataDir, 'demo-credentials.json');
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect(await first.terminate()).to.equal(0);

      const second = await startServiceProcess({}, first.dataDir);
      try {
        expect(second.credentials()).to.deep.equal(before);
        const api = `http://127.0.0.1:${second.port}`;
        const token = await fetch(`${api}/oauth/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${before.id}:${before.secret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials',
        });
        expect(token.status).to.equal(200);
        const login = await fetch(`${api}/v1/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-ias-challenge': await solvedChallenge(api, 'login') },
          body: JSON.stringify({ email: before.email, password: before.password }),
        });
        expect(login.status).to.equal(200);
        expect((await fetch(`http://127.0.0.1:${second.dashboardPort}/login`)).status).to.equal(200);
      } finally {
        second.stop();
      }
    } finally {
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});

describe('starting with a bad environment', () => {
  it('exits with a message naming the variable, before opening any database', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).to.equal(78);
    expect(stderr).to.include('Configuration error: PORT: must be a whole number');
  });
});
