import { request } from 'node:http';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { rpc } from '../support/mcp.js';

/** A POST to /mcp through node:http, which sends the Host header it is given (fetch sends the URL's). */
function post(
  server: TestServer,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; contentType: string | undefined; body: any }> {
  const { port } = new URL(server.api.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode!, contentType: res.headers['content-type'], body: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

describe('MCP transport security: Origin and Host (DNS rebinding), no JSON-RPC batches', () => {
  let server: TestServer;
  const allowed = 'https://assistant.example';

  before(async () => {
    server = await startTestServer({ MCP_ALLOWED_ORIGINS: `${allowed}, http://localhost:6274` });
  });
  after(() => server.close());

  it('refuses a page of another origin with 403 origin-not-allowed before it looks at the token', async () => {
    const token = await server.token(['read', 'mcp']);
    for (const origin of ['http://evil.example', 'null', `${server.url}.evil.example`, 'https://assistant.example:8443']) {
      for (const authorization of [`Bearer ${token}`, undefined]) {
        const response = await rpc(server, authorization?.slice(7), 'ping', {}, { origin });
        expect(response.status, origin).to.equal(403);
        expect(response.headers.get('content-type')).to.equal('application/problem+json; charset=utf-8');
        expect(response.headers.get('www-authenticate')).to.equal(null);
        expect(response.body).to.include({ type: `${server.url}/problems/origin-not-allowed`, status: 403, instance: '/mcp' });
        expect(response.body.detail).to.include(origin);
      }
    }
  });

  it('serves its own origin, an allowed one and a request without Origin (server-to-server)', async () => {
    const token = await server.token(['read', 'mcp']);
    for (const headers of [{ origin: server.url }, { origin: allowed }, { origin: 'http://localhost:6274' }, {}] as Record<
      string,
      string
    >[]) {
      const response = await rpc(server, token, 'ping', {}, headers);
      expect(response.status, JSON.stringify(headers)).to.equal(200);
      expect(response.body).to.deep.equal({ jsonrpc: '2.0', id: 1, result: {} });
    }
  });

  it('on a localhost BASE_URL, refuses a Host that is not a loopback name (a DNS-rebound page), with or without Origin', async () => {
    const token = await server.token(['read', 'mcp']);
    const { port } = new URL(server.url);
    for (const host of [`evil.example:${port}`, 'evil.example', `localhost.evil.example:${port}`]) {
      const response = await post(server, { host, authorization: `Bearer ${token}` }, ping);
      expect(response.status, host).to.equal(403);
      expect(response.body.type).to.equal(`${server.url}/problems/origin-not-allowed`);
    }
    const rebound = await post(server, { host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, ping);
    expect(rebound.status).to.equal(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const response = await post(server, { host, authorization: `Bearer ${token}` }, ping);
      expect(response.status, host).to.equal(200);
    }
  });

  it('refuses a JSON-RPC batch with HTTP 400 and an Invalid Request error without id, running none of its calls', async () => {
    const token = await server.token(['read', 'trade', 'mcp']);
    const engage = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'engageKillSwitch', arguments: { reason: 'batched' } } };
    const feasibility = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'evaluateGoalFeasibility',
        arguments: { capital: 10000, target: 50000, horizon_years: 30, market: 'US', monthly_contribution: 200 },
      },
    });
    for (const batch of [[engage, feasibility(2)], Array.from({ length: 100 }, (_, i) => feasibility(i + 1)), [ping]]) {
      const response = await post(
        server,
        { host: new URL(server.url).host, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-06-18' },
        batch,
      );
      expect(response.status).to.equal(400);
      expect(response.contentType).to.equal('application/json; charset=utf-8');
      expect(response.body).to.deep.include({ jsonrpc: '2.0', id: null });
      expect(response.body.error.code).to.equal(-32600);
      expect(response.body.error.message).to.match(/batches are not supported/);
    }
    expect((await server.api.get('/v1/kill-switch', { token })).body.engaged).to.equal(false);
  });
});
