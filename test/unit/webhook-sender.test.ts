import { expect } from 'chai';
import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { Receiver } from '../support/webhook-receiver.js';

/** A resolver that answers from a table, as a DNS server whose answer changed after the URL was saved would. */
const resolver =
  (table: Record<string, LookupAddress[]>) =>
  (hostname: string, _options: unknown, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) =>
    table[hostname] ? callback(null, table[hostname]) : callback(Object.assign(new Error(`no ${hostname}`), { code: 'ENOTFOUND' }), []);

describe('webhook sender: every address is checked when the connection is made', () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await new Receiver().listen();
  });
  after(() => receiver.close());

  it('refuses a name that resolves to a loopback address, naming the rule', async () => {
    const sender = new WebhookSender(false, resolver({ 'hooks.example.com': [{ address: '127.0.0.1', family: 4 }] }));
    const result = await sender.send('https://hooks.example.com/in', {}, '{}');
    sender.close();
    expect(result.statusCode).to.equal(null);
    expect(result.error).to.contain('refused: hooks.example.com resolves to 127.0.0.1 is a loopback address');
  });

  it('refuses an answer with one private address among public ones, and IPv4-mapped and metadata addresses', async () => {
    const sender = new WebhookSender(
      false,
      resolver({
        'mixed.example.com': [
          { address: '93.184.215.14', family: 4 },
          { address: '10.0.0.7', family: 4 },
        ],
        'mapped.example.com': [{ address: '::ffff:169.254.169.254', family: 6 }],
      }),
    );
    expect((await sender.send('https://mixed.example.com/', {}, '{}')).error).to.contain('10.0.0.7 is a private address');
    expect((await sender.send('https://mapped.example.com/', {}, '{}')).error).to.contain(
      'IPv4-mapped form of 169.254.169.254, a link-local address',
    );
    expect((await sender.send('http://93.184.215.14/', {}, '{}')).error).to.contain('must be https://');
    expect((await sender.send('https://[::1]/', {}, '{}')).error).to.contain('loopback');
    // The IPv4-compatible form (::/96), as a URL normalises it ([::7f00:1]), of a loopback and of a public address.
    expect((await sender.send('https://[::127.0.0.1]/', {}, '{}')).error).to.contain('IPv4-compatible form of 127.0.0.1');
    expect((await sender.send('https://[::8.8.8.8]/', {}, '{}')).error).to.contain('IPv4-compatible form of 8.8.8.8');
    sender.close();
  });

  it('with private networks allowed it connects through the same lookup', async () => {
    const sender = new WebhookSender(true, resolver({ 'receiver.test': [{ address: '127.0.0.1', family: 4 }] }));
    const result = await sender.send(`http://receiver.test:${receiver.port}/hooks`, { 'webhook-id': 'evt_1' }, '{"a":1}');
    sender.close();
    expect(result.statusCode).to.equal(204);
    expect(receiver.of('evt_1')[0]!.body).to.equal('{"a":1}');
  });

  it('says an attempt timed out only when no answer came in time (what makes an endpoint back off)', async () => {
    const silent = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sender = new WebhookSender(true, resolver({}), 100);
    const { port } = silent.address() as AddressInfo;
    try {
      const late = await sender.send(`http://127.0.0.1:${port}/`, {}, '{}');
      expect([late.statusCode, late.error, late.timedOut]).to.deep.equal([null, 'no answer within 0.1 s', true]);
      const answered = await sender.send(`http://127.0.0.1:${receiver.port}/hooks`, { 'webhook-id': 'evt_2' }, '{}');
      expect([answered.statusCode, answered.timedOut]).to.deep.equal([204, undefined]);
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
      const refused = await sender.send(`http://127.0.0.1:${port}/`, {}, '{}'); // nothing listens there now
      expect([refused.statusCode, refused.timedOut]).to.deep.equal([null, undefined]);
    } finally {
      sender.close();
      silent.close();
    }
  });
});
