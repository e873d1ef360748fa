// The broker port's contract, held by both of its implementations: the built-in paper broker (over the service's
// books, through a test server) and the Alpaca adapter (against the stand-in). What the services ask of a broker
// means the same on either.
import { expect } from 'chai';
import { AlpacaBroker } from '../../src/brokers/alpaca.js';
import { BrokerError, type BrokerPort } from '../../src/brokers/port.js';
import { PaperBroker } from '../../src/services/brokerage/paper.js';
import { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { until } from '../support/poll.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { policyHolder } from '../support/trading.js';

interface Subject {
  port: BrokerPort;
  /** Places a buy of 1 VTI with a limit below the price (within the price collar) (it rests), as the broker's own client would; its id. */
  rest: () => Promise<string>;
  /** Buys 2 VTI now; resolves once the broker holds the position. */
  buyTwo: () => Promise<void>;
}

function holdsThePortContract(name: string, subject: () => Subject) {
  describe(`the broker port, as ${name} holds it`, () => {
    it('states cash and buying power, positions with their cost, the latest prices with their time, and a clock', async () => {
      const { port, buyTwo } = subject();
      const account = await port.account();
      expect(account.currency).to.equal('USD');
      expect(account.cash.greaterThan(0)).to.equal(true);
      expect(account.buyingPower.greaterThanOrEqualTo(0)).to.equal(true);
      expect(account.readAt).to.be.instanceOf(Date);
      await buyTwo();
      const vti = (await port.positions()).find((p) => p.symbol === 'VTI');
      expect(vti?.quantity.toFixed()).to.equal('2');
      expect(vti!.averageCost.greaterThan(0)).to.equal(true);
      const prices = await port.latestPrices(['VTI', 'NOPE']);
      expect([...prices.keys()]).to.deep.equal(['VTI']);
      expect(prices.get('VTI')!.price.greaterThan(0)).to.equal(true);
      expect(prices.get('VTI')!.asOf).to.be.instanceOf(Date);
      const clock = await port.clock();
      expect(clock.isOpen).to.be.a('boolean');
      expect(clock.nextClose.getTime()).to.be.above(clock.at.getTime() - 1);
    });

    it('answers a resting order by its client order id, lists it open, and cancels it; an unknown id is undefined', async () => {
      const { port, rest } = subject();
      expect(await port.orderByClientId('ord_nobody')).to.equal(undefined);
      const id = await rest();
      const order = await port.orderByClientId(id);
      expect([order?.clientOrderId, order?.status, order?.filledQuantity.toFixed(), order?.averageFillPrice]).to.deep.equal([
        id,
        'accepted',
        '0',
        null,
      ]);
      expect((await port.openOrders()).map((o) => o.clientOrderId)).to.include(id);
      await port.cancel(id);
      const cancelling = await port.cancel('ord_nobody').then(
        () => undefined,
        (error: BrokerError) => error.kind,
      );
      expect(cancelling).to.equal('not_found');
    });

    it('answers a submit with the order as it then stands: accepted, or filled in full at a price', async () => {
      const { port } = subject();
      const answer = await port.submit({
        clientOrderId: `ord_port_${Date.now()}`,
        symbol: 'VTI',
        side: 'buy',
        quantity: '1',
        type: 'market',
        timeInForce: 'day',
      });
      expect(['accepted', 'filled']).to.include(answer.status);
      if (answer.status === 'filled')
        expect([answer.filledQuantity.toFixed(), answer.averageFillPrice!.greaterThan(0)]).to.deep.equal(['1', true]);
      else expect(answer.filledQuantity.toFixed()).to.equal('0');
    });
  });
}

describe('one broker port, two brokers', function () {
  this.timeout(30_000);
  let server: TestServer;
  let alpaca: AlpacaStandIn;
  let paper: Subject;
  let remote: Subject;

  before(async () => {
    server = await startTestServer();
    alpaca = await AlpacaStandIn.start();
    alpaca.addAccount({ keyId: 'PKPORT', secretKey: 'port-secret', cash: '100000' });
    alpaca.setPrice('VTI', '330.00');
    const holder = await policyHolder(server);
    const approve = (id: string) => server.api.request('POST', `/v1/orders/${id}/approve`, { token: holder.token });
    paper = {
      port: new PaperBroker(server.context, holder.accountId),
      async rest() {
        const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1', order_type: 'limit', limit_price: '300' });
        expect((await approve(order!.id)).body.status).to.equal('submitted');
        return order!.id;
      },
      async buyTwo() {
        const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '2' });
        expect((await approve(order!.id)).body.status).to.equal('filled');
      },
    };
    const port = new AlpacaBroker({
      tradingUrl: alpaca.tradingUrl,
      dataUrl: alpaca.dataUrl,
      streamUrl: alpaca.streamUrl,
      keyId: 'PKPORT',
      secretKey: 'port-secret',
      timeoutMs: 2_000,
    });
    let n = 0;
    remote = {
      port,
      async rest() {
        const id = `ord_rest_${++n}`;
        await port.submit({
          clientOrderId: id,
          symbol: 'VTI',
          side: 'buy',
          quantity: '1',
          type: 'limit',
          limitPrice: '300',
          timeInForce: 'day',
        });
        return id;
      },
      async buyTwo() {
        await port.submit({
          clientOrderId: `ord_two_${++n}`,
          symbol: 'VTI',
          side: 'buy',
          quantity: '2',
          type: 'market',
          timeInForce: 'day',
        });
        await until('the position', async () => (await port.positions()).some((p) => p.symbol === 'VTI'));
      },
    };
  });

  after(async () => {
    await server?.close();
    expect(alpaca.violations()).to.deep.equal([]);
    await alpaca?.close();
  });

  holdsThePortContract('the paper broker', () => paper);
  holdsThePortContract('the Alpaca adapter', () => remote);
});
