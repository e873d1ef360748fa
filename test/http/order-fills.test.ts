import { expect } from 'chai';
import { createGraphQLSchema } from '../../src/graphql/schema.js';
import { expectSameAnswer, selectAll } from '../graphql/selection.js';
import { graphql } from '../graphql/support.js';
import { ALPACA_PARTIAL_FILLS, recordAtBroker } from '../support/broker-steps.js';
import { Visitor } from '../support/dashboard-visitor.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { until } from '../support/poll.js';
import { FixedPrices } from '../support/prices.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, manualClock, propose } from '../support/trading.js';

/**
 * What an order says of its execution and its broker — `filled_quantity`, `average_fill_price` (and `fill_price`, the
 * same value), `broker` and the `partially_filled` state — the same over REST, GraphQL, MCP, the event feed and the
 * dashboard.
 */
describe('orders: what executed and where, on every channel', () => {
  let server: TestServer;
  const start = '2026-12-01T15:00:00.000Z';
  const clock = manualClock(start);
  const prices = new FixedPrices();
  prices.set('VTI', '200.00');
  const schema = createGraphQLSchema();
  const password = 'a long and unusual passphrase';
  let people = 0;

  before(async () => {
    clock.set(start);
    server = await startTestServer({}, { clock, prices });
  });
  after(() => server.close());

  async function holder() {
    const email = `fills${++people}@example.com`;
    await server.services.people.setPassword(email, password, 'Grace Hopper');
    const account = await server.account(['read', 'trade', 'write', 'mcp'], email);
    await createPolicy(server, account.token);
    return { ...account, email };
  }
  const get = async (token: string, id: string) => (await server.api.get(`/v1/orders/${id}`, { token })).body;

  /** The order over GraphQL (every member) and MCP (getOrder) must be REST's, member for member. */
  async function expectSameOnEveryChannel(token: string, id: string, rest: unknown) {
    const answer = await graphql(server, `query($id: ID!) { order(id: $id) ${selectAll(schema, 'Order')} }`, { token, variables: { id } });
    expect(answer.body.errors, JSON.stringify(answer.body.errors)).to.equal(undefined);
    expectSameAnswer(answer.body.data.order, rest);
    const mcp = await connectMcp(server, token);
    try {
      const got = await callTool(mcp, 'getOrder', { id });
      expect(got.ok && got.value).to.deep.equal(rest);
    } finally {
      await mcp.close();
    }
  }

  it('a paper-filled order: average_fill_price is fill_price, all of it filled, broker paper; the same over REST, GraphQL and MCP', async () => {
    const account = await holder();
    const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '2.5' }]);
    expect((await get(account.token, order!.id)).broker, 'never sent: no broker').to.equal(null);
    const approved = await server.api.post(`/v1/orders/${order!.id}/approve`, { token: account.token });
    expect(approved.body).to.include({ status: 'filled', fill_price: 200, average_fill_price: 200, filled_quantity: 2.5, quantity: 2.5 });
    expect(approved.body.broker).to.deep.equal({ id: 'paper', order_id: null, status: 'filled', submitted_at: start, rests_until: null });
    const rest = await get(account.token, order!.id);
    expect(rest).to.deep.equal(approved.body);
    await expectSameOnEveryChannel(account.token, order!.id, rest);

    // The events hold the order as it stood: submitted at the paper broker (accepted, nothing executed), then filled.
    // The feed lists settled events (older than every transaction running on the server): read until the three are.
    const orderEvents = async () =>
      (await server.api.get('/v1/events?limit=100', { token: account.token })).body.data.filter(
        (e: any) => e.type.startsWith('order.') && e.data.id === order!.id,
      );
    const feed = await until('the order’s three events in the feed', async () => {
      const events = await orderEvents();
      return events.length >= 3 && events;
    });
    expect(feed.map((e: any) => [e.type, e.data.broker?.status, e.data.average_fill_price])).to.deep.equal([
      ['order.proposed', undefined, null],
      ['order.submitted', 'accepted', null],
      ['order.filled', 'filled', 200],
    ]);
    expect(feed[0].data.broker).to.equal(null);
    expect(feed.at(-1).data).to.deep.equal(rest);
  });

  it('a limit order resting at the paper broker: accepted, nothing executed; cancelled there, the paper broker says canceled', async () => {
    const account = await holder();
    const [order] = await propose(server, account, [
      { symbol: 'VTI', side: 'buy', quantity: '1', order_type: 'limit', limit_price: '190.00' },
    ]);
    const submitted = (await server.api.post(`/v1/orders/${order!.id}/approve`, { token: account.token })).body;
    expect(submitted).to.include({ status: 'submitted', fill_price: null, average_fill_price: null, filled_quantity: 0 });
    expect(submitted.broker).to.deep.equal({ id: 'paper', order_id: null, status: 'accepted', submitted_at: start, rests_until: null });
    const cancelled = (await server.api.post(`/v1/orders/${order!.id}/cancel`, { token: account.token })).body;
    expect(cancelled.status).to.equal('cancelled');
    expect(cancelled.broker).to.deep.equal({ ...submitted.broker, status: 'canceled' });
    await expectSameOnEveryChannel(account.token, order!.id, cancelled);
  });

  it('a partially filled order (as the broker flow records it): cumulative quantity, average price, Alpaca’s record, only cancel allowed', async () => {
    const account = await holder();
    const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '10' }]);
    await recordAtBroker(server, order!.id, ALPACA_PARTIAL_FILLS(new Date(start), 'b-61e69015'));
    const rest = await get(account.token, order!.id);
    expect(rest).to.include({
      status: 'partially_filled',
      quantity: 10,
      filled_quantity: 5,
      fill_price: 190.4,
      average_fill_price: 190.4,
      filled_at: null,
    });
    expect(rest.broker).to.deep.equal({
      id: 'alpaca',
      order_id: 'b-61e69015',
      status: 'partially_filled',
      submitted_at: start,
      rests_until: null,
    });
    expect(rest.events.map((e: any) => [e.from, e.to])).to.deep.equal([
      [null, 'proposed'],
      ['proposed', 'submitted'],
      ['submitted', 'partially_filled'],
      ['partially_filled', 'partially_filled'],
    ]);
    await expectSameOnEveryChannel(account.token, order!.id, rest);

    const listed = (await server.api.get('/v1/orders?status=partially_filled', { token: account.token })).body.data;
    expect(listed).to.deep.equal([rest]);
    const feed = (await server.api.get('/v1/events?type=order.partially_filled', { token: account.token })).body.data;
    expect(feed.map((e: any) => [e.type, e.data.filled_quantity])).to.deep.equal([
      ['order.partially_filled', 3],
      ['order.partially_filled', 5],
    ]);
    expect(feed[1].data).to.deep.equal(rest);
    const typed = await graphql(server, '{ events(limit: 20) { data { __typename } } }', { token: account.token });
    expect(typed.body.data.events.data.map((e: any) => e.__typename)).to.include('OrderPartiallyFilledEvent');

    for (const trigger of ['approve', 'reject']) {
      const refused = await server.api.post(`/v1/orders/${order!.id}/${trigger}`, { token: account.token });
      expect(refused.status, trigger).to.equal(409);
      expect(refused.body).to.include({
        current_state: 'partially_filled',
        detail: `The order is partially_filled; ${trigger} is not allowed (allowed: cancel).`,
      });
      expect(refused.body.allowed_triggers).to.deep.equal(['cancel']);
    }
    expect(await get(account.token, order!.id)).to.deep.equal(rest);
  });

  it('the dashboard shows what executed, where the order was sent, and when it waits for the market to open', async () => {
    const account = await holder();
    const [partial, resting] = await propose(server, account, [
      { symbol: 'VTI', side: 'buy', quantity: '10' },
      { symbol: 'VTI', side: 'buy', quantity: '4' },
    ]);
    await recordAtBroker(server, partial!.id, ALPACA_PARTIAL_FILLS(new Date(start), 'b-partial'));
    await recordAtBroker(server, resting!.id, [
      {
        to: 'submitted',
        reason: 'approved',
        fields: {
          broker_id: 'alpaca',
          broker_order_id: 'b-resting',
          broker_status: 'accepted',
          broker_submitted_at: new Date(start),
          rests_until: new Date('2026-12-02T14:30:00.000Z'),
        },
      },
    ]);
    const visitor = new Visitor(server.dashboardUrl);
    expect((await visitor.logIn(account.email, password)).status).to.equal(303);

    const page = (await visitor.page(`/orders/${partial!.id}`)).html;
    expect(page).to.include('<span class="status status-partially_filled">partially filled</span>');
    expect(page).to.include('5 of 10 at USD 190.40').and.include('Sent to Alpaca, order b-partial, partially_filled');
    const waiting = (await visitor.page(`/orders/${resting!.id}`)).html;
    expect(waiting).to.include('Sent to Alpaca, order b-resting, accepted');
    expect(waiting).to.include(
      'Waiting at the broker for the market to open at <time datetime="2026-12-02T14:30:00.000Z">2026-12-02 14:30 UTC</time>',
    );
    expect(waiting).to.not.include('Filled');

    const list = (await visitor.page('/orders?status=partially_filled')).html;
    expect(list).to.include('Partially filled orders').and.include(partial!.id).and.not.include(resting!.id);
    expect(list).to.include('partially filled</span>: 5 of 10 at USD 190.40');
  });
});
