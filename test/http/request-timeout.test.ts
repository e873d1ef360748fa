import { connect } from 'node:net';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';

/** REQUEST_TIMEOUT_MS: a request that never finishes arriving is answered 408 as a problem, and the connection closed. */
describe('a request that never finishes arriving (REQUEST_TIMEOUT_MS)', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ REQUEST_TIMEOUT_MS: '1000' });
  });
  after(() => server.close());

  it('is answered 408 with an RFC 9457 problem and the connection closed', async function () {
    // Node looks for late requests every quarter of the timeout here (not every 30 s): within 1.25 s.
    this.timeout(10_000);
    const socket = connect(server.running.port, '127.0.0.1');
    socket.setEncoding('latin1');
    let answer = '';
    socket.on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // Headers begun and never ended.
    socket.write('POST /v1/orders/ord_x/approve HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\n');
    await closed;
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).to.match(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).to.match(/\r\nContent-Type: application\/problem\+json; charset=utf-8/);
    expect(JSON.parse(body!)).to.deep.include({ type: `${server.url}/problems/malformed-request`, title: 'Request timeout', status: 408 });
  });
});
