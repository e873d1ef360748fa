// An account connected to Alpaca (a stand-in speaking Alpaca's published documents), through GraphQL: the portfolio
// is the broker's, approveOrder places one order with the order's id as client order id and the fill comes back, and
// a broker that does not answer gives the broker-unavailable problem with nothing decided. REST's own test
// (test/http/broker-orders.test.ts) covers the broker's behaviours; this one holds the channel to them.
import { expect } from 'chai';
import type { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { alpacaSuite } from '../support/alpaca-suite.js';
import { until } from '../support/poll.js';
import type { TestServer } from '../support/server.js';
import { policyHolder } from '../support/trading.js';
import { expectSameAnswer } from './selection.js';
import { graphql } from './support.js';

const KEY_ID = 'PKGRAPHQLFLOW';

/** REST's answer cut to the members a GraphQL selection answered (`shape`), leaving out what REST leaves out. */
function selected(value: any, shape: unknown): unknown {
  if (Array.isArray(shape)) return shape.map((member, i) => selected(value[i], member));
  if (shape === null || typeof shape !== 'object') return value;
  return Object.fromEntries(Object.entries(shape).flatMap(([key, member]) => (key in value ? [[key, selected(value[key], member)]] : [])));
}

const ORDER = `{ id status filled_quantity average_fill_price broker { id order_id status rests_until } events { from to } }`;

describe('orders on an account connected to Alpaca (a stand-in), over GraphQL', function () {
  this.timeout(30_000);
  const suite = alpacaSuite();
  let alpaca: AlpacaStandIn;
  let server: TestServer;
  let holder: Awaited<ReturnType<typeof policyHolder>>;

  before(async () => {
    ({ alpaca, server } = suite);
    holder = await policyHolder(server);
    await suite.connect(holder.accountId, KEY_ID);
  });

  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const response = await graphql(server, query, { token: holder.token, variables });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return response.body;
  };
  const data = async (query: string, variables?: Record<string, unknown>) => {
    const body = await gql(query, variables);
    expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
    return body.data;
  };
  const orderOf = async (id: string) => (await data(`query($id: ID!) { order(id: $id) ${ORDER} }`, { id })).order;
  const approve = `mutation($id: ID!) { approveOrder(id: $id) ${ORDER} }`;

  it("portfolio shows the broker's cash and positions at its prices, and brokers shows alpaca active", async () => {
    const { portfolio, brokers } = await data(
      `{ portfolio(market: "US") { cash holdings { symbol quantity average_cost last_price } } brokers { data { id status } } }`,
    );
    expect(portfolio.cash).to.equal(20000);
    expect(portfolio.holdings).to.deep.equal([{ symbol: 'BND', quantity: 10, average_cost: 72, last_price: 74 }]);
    expect(brokers.data.find((b: any) => b.id === 'alpaca').status).to.equal('active');
  });

  it("approveOrder places one order at the broker, client_order_id the order's id, and the order then reads filled", async () => {
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '3' });
    const approved = (await data(approve, { id: order!.id })).approveOrder;
    expect(['submitted', 'filled']).to.include(approved.status);
    expect(approved.broker.id).to.equal('alpaca');
    expect(approved.broker.rests_until).to.equal(null);
    expect(approved).to.have.property('filled_quantity').that.is.a('number');
    expect(approved).to.have.property('average_fill_price');

    const filled = await until('the fill', async () => {
      const read = await orderOf(order!.id);
      return read.status === 'filled' ? read : undefined;
    });
    const placed = alpaca.orders(KEY_ID).filter((o) => o.client_order_id === order!.id);
    expect(placed).to.have.length(1);
    expect(alpaca.requests.filter((r) => r.method === 'POST' && r.path === '/v2/orders')).to.have.length(1);
    expect(filled).to.deep.include({ filled_quantity: 3, average_fill_price: 330 });
    expect(filled.broker).to.deep.include({ id: 'alpaca', order_id: placed[0]!.id, rests_until: null });
    expect(filled.events.map((e: any) => e.to)).to.deep.equal(['proposed', 'submitted', 'filled']);
    const rest = await server.api.request('GET', `/v1/orders/${order!.id}`, { token: holder.token });
    expectSameAnswer(filled, selected(rest.body, filled));
  });

  // The submit's answer (pending_new) or the stream's `new` may land after the fill: the word only moves forward.
  it("a filled order's broker status is the broker's last word, filled", async () => {
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    await data(approve, { id: order!.id });
    const filled = await until('the fill', async () => {
      const read = await orderOf(order!.id);
      return read.status === 'filled' ? read : undefined;
    });
    expect(filled.broker.status).to.equal('filled');
  });

  it('approveOrder answers the broker-unavailable problem when the broker does not answer its reads, and the order stays proposed', async () => {
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    alpaca.down({ mode: '503' });
    try {
      const body = await gql(approve, { id: order!.id });
      expect(body.data).to.deep.equal({ approveOrder: null });
      expect(body.errors).to.have.length(1);
      const [error] = body.errors!;
      expect(error.path).to.deep.equal(['approveOrder']);
      expect(error.extensions).to.include({
        code: 'BROKER_UNAVAILABLE',
        type: `${server.url}/problems/broker-unavailable`,
        status: 503,
      });
      expect(error.extensions.retry_after).to.be.a('number').above(0);
      expect(error.message).to.equal(error.extensions.detail);
    } finally {
      alpaca.up();
    }
    expect((await orderOf(order!.id)).status).to.equal('proposed');
    expect(alpaca.orders(KEY_ID).filter((o) => o.client_order_id === order!.id)).to.deep.equal([]);
  });
});
