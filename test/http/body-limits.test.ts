// Bodies are refused before they are read (issue 34, point 3): a declared Content-Length over BODY_LIMIT_BYTES is 413
// at once, a streamed body is cut at the limit (the connection closed, the rest never read), and /graphql and /mcp
// check the bearer token before the body, as REST does. rawExchange fails a test whose connection the server does not
// end within 3 s: answering only once the body was drained, or the request timed out, fails it.
import { expect } from 'chai';
import { connect } from 'node:net';
import { rawExchange } from '../support/raw-connection.js';
import { startTestServer, type TestServer } from '../support/server.js';

const GIB = 1024 * 1024 * 1024;

describe('bodies refused before they are read', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = await server.token(['read', 'mcp']);
  });
  after(() => server.close());

  /** The status line of the answer to a request declaring `length` bytes and sending none of them. */
  const declared = async (path: string, length: number, headers = '') => {
    const answer = await rawExchange(
      server.running.port,
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.running.port}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${headers}\r\n`,
    );
    return { status: Number(answer.split(' ')[1]), answer };
  };

  it('answers 413 to 1 GiB declared and not sent, on REST, the token endpoint, GraphQL and MCP, and closes the connection', async () => {
    const bearer = `Authorization: Bearer ${token}\r\n`;
    for (const path of ['/v1/goals/feasibility', '/graphql', '/mcp']) {
      const { status, answer } = await declared(path, GIB, `${bearer}Accept: application/json, text/event-stream\r\n`);
      expect(status, path).to.equal(413);
      expect(answer, path)
        .to.match(/\r\nconnection: close\r\n/i)
        .and.include('payload-too-large');
    }
    expect((await declared('/oauth/token', GIB)).status).to.equal(413);
  });

  it('answers 401 on /graphql and /mcp to a 200 KB body declared without a token, as REST does, reading none of it', async () => {
    for (const path of ['/v1/goals/feasibility', '/graphql', '/mcp']) expect((await declared(path, 200 * 1024)).status, path).to.equal(401);
  });

  it('cuts a streamed body at the limit: 413, and the connection closed while the client still sends', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.running.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
      socket.write(
        `POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      // 16 KB chunks, never the last one: only a server that stops reading at the limit answers.
      const chunk = `4000\r\n${'a'.repeat(0x4000)}\r\n`;
      const pump = setInterval(() => socket.writable && socket.write(chunk), 1);
      socket.on('close', () => clearInterval(pump));
      setTimeout(() => {
        clearInterval(pump);
        socket.destroy();
        reject(new Error(`no answer within 3 s: ${text.slice(0, 100)}`));
      }, 3000).unref();
    });
    expect(answer).to.match(/^HTTP\/1\.1 413 /);
  });

  it('refuses an encoded body with 415, and still reads a body within the limit', async () => {
    const encoded = await server.api.post('/v1/goals/feasibility', {
      token,
      body: '{}',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect([encoded.status, encoded.body.detail]).to.deep.equal([415, 'Send the request body without a Content-Encoding.']);
    const goal = { capital: 10000, target: 20000, horizon_years: 10, market: 'US' };
    expect((await server.api.post('/v1/goals/feasibility', { token, json: goal })).status).to.equal(200);
  });
});
