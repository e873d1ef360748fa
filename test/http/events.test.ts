import { expect } from 'chai';
import { publish } from '../../src/services/events/outbox.js';
import { connectMcp, callTool } from '../support/mcp.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, propose } from '../support/trading.js';
import { graphql } from '../graphql/support.js';

describe('events: every change in the transaction that makes it, and a feed at GET /v1/events', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /**
   * Follows the feed from `cursor` (the start by default) until has_more is false and at least `count` events came;
   * answers them and where it ended. An event is listed once every transaction older than it has ended, anywhere on
   * the PostgreSQL server (another database's tests too), so a reader polls, as a consumer does.
   */
  async function readFeed(token: string, cursor?: string, query = '', count = 0) {
    const events: any[] = [];
    for (let page = 0; page < 10_000; page++) {
      const response = await server.api.get(`/v1/events?limit=7${query}${cursor ? `&cursor=${cursor}` : ''}`, { token });
      expect(response.status, response.text).to.equal(200);
      events.push(...response.body.data);
      cursor = response.body.next_cursor;
      if (!response.body.has_more && events.length >= count) return { events, cursor: cursor! };
      if (response.body.data.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`the feed did not list ${count} events`);
  }

  it('records each change with the resource as GET answers it then, in the order they happened', async () => {
    const account = await server.account(['read', 'write', 'trade']);
    const policy = await createPolicy(server, account.token);
    const generated = await server.api.post('/v1/ideas/generate', { token: account.token, json: { mode: 'invest_cash', market: 'US' } });
    expect(generated.status, generated.text).to.equal(201);
    const idea = generated.body.ideas[0];
    const [first, second] = idea.orders;
    const filled = await server.api.post(`/v1/orders/${first.id}/approve`, { token: account.token });
    expect(filled.body.status).to.equal('filled');
    const rejected = await server.api.post(`/v1/orders/${second.id}/reject`, { token: account.token, json: { reason: 'later' } });
    const engaged = await server.api.post('/v1/kill-switch', { token: account.token, json: { reason: 'pause' } });
    const today = new Date().toISOString().slice(0, 10);
    const report = await server.api.post('/v1/reports/daily', { token: account.token, json: { date: today } });

    const { events } = await readFeed(account.token, undefined, '', 7 + idea.orders.length);
    const types = events.map((e) => e.type);
    expect(types).to.deep.equal([
      'policy.created',
      'idea.generated',
      ...idea.orders.map(() => 'order.proposed'),
      'order.submitted',
      'order.filled',
      'order.rejected',
      'kill_switch.engaged',
      'report.generated',
    ]);
    const of = (type: string) => events.filter((e) => e.type === type);
    expect(of('policy.created')[0].data).to.deep.equal(policy);
    expect(of('idea.generated')[0].data).to.deep.equal(idea);
    expect(of('order.proposed').map((e) => e.data)).to.deep.equal(idea.orders);
    expect(of('order.filled')[0].data).to.deep.equal(filled.body);
    expect(of('order.filled')[0].data).to.deep.equal((await server.api.get(`/v1/orders/${first.id}`, { token: account.token })).body);
    // The submission's event shows the order as it was between the two steps.
    expect(of('order.submitted')[0].data).to.include({
      id: first.id,
      status: 'submitted',
      fill_price: null,
      average_fill_price: null,
      filled_quantity: 0,
    });
    expect(of('order.submitted')[0].data.broker).to.include({ id: 'paper', status: 'accepted' });
    expect(of('order.submitted')[0].data.events.map((e: any) => e.to)).to.deep.equal(['proposed', 'submitted']);
    expect(of('order.rejected')[0].data).to.deep.equal(rejected.body);
    expect(of('kill_switch.engaged')[0].data).to.deep.equal(engaged.body);
    expect(of('report.generated')[0].data).to.deep.equal(report.body);
    for (const event of events) {
      expect(event.id).to.match(/^evt_/);
      expect(event.account_id).to.equal(account.accountId);
      expect(Date.parse(event.timestamp)).to.be.a('number').and.not.NaN;
    }
  });

  it('an order that expires records order.expired when its expiry is recorded, dated when it expired', async () => {
    const account = await server.account(['read', 'write']);
    const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '1' }]);
    const expiresAt = new Date(Date.now() - 60_000);
    await server.context.store.db.updateTable('orders').set({ expires_at: expiresAt }).where('id', '=', order!.id).execute();
    expect((await readFeed(account.token, undefined, '&type=order.expired')).events).to.have.length(0);
    await server.api.post('/v1/reports/daily', { token: account.token, json: { date: new Date().toISOString().slice(0, 10) } });
    const [expired] = (await readFeed(account.token, undefined, '&type=order.expired', 1)).events;
    expect(expired.timestamp).to.equal(expiresAt.toISOString());
    expect(expired.data).to.deep.equal((await server.api.get(`/v1/orders/${order!.id}`, { token: account.token })).body);
  });

  it('GET /v1/events/{id} answers the event; another account’s or an unknown one is 404; a bad cursor is 400', async () => {
    const account = await server.account(['read', 'trade']);
    await createPolicy(server, account.token);
    const [event] = (await readFeed(account.token, undefined, '', 1)).events;
    const one = await server.api.get(`/v1/events/${event.id}`, { token: account.token });
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.equal(event);
    const other = await server.token(['read']);
    expect((await server.api.get(`/v1/events/${event.id}`, { token: other })).status).to.equal(404);
    expect((await server.api.get('/v1/events/evt_missing', { token: account.token })).status).to.equal(404);
    const bad = await server.api.get('/v1/events?cursor=bm90LW91cnM', { token: account.token });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors[0].pointer).to.equal('/query/cursor');
    expect((await server.api.get('/v1/events?type=order.unknown', { token: account.token })).status).to.equal(400);
    expect((await server.api.get('/v1/events', { token: await server.token(['trade']) })).status).to.equal(403);
  });

  it('a caught-up reader keeps its cursor and gets only what happened since', async () => {
    const account = await server.account(['read', 'trade']);
    await createPolicy(server, account.token);
    const { cursor } = await readFeed(account.token, undefined, '', 1);
    const empty = await server.api.get(`/v1/events?cursor=${cursor}`, { token: account.token });
    expect(empty.body).to.deep.equal({ data: [], next_cursor: cursor, has_more: false });
    await server.api.post('/v1/kill-switch', { token: account.token, json: { reason: 'now' } });
    expect((await readFeed(account.token, cursor, '', 1)).events.map((e) => e.type)).to.deep.equal(['kill_switch.engaged']);
  });

  it('GraphQL `events`/`event` and the MCP tools listEvents/getEvent answer what REST answers', async () => {
    const account = await server.account(['read', 'trade', 'mcp']);
    await createPolicy(server, account.token);
    await server.api.post('/v1/kill-switch', { token: account.token, json: { reason: 'channels' } });
    await readFeed(account.token, undefined, '', 2);
    const rest = (await server.api.get('/v1/events', { token: account.token })).body;
    const query =
      '{ events(limit: 20) { next_cursor has_more data { __typename ... on PolicyCreatedEvent { id type timestamp account_id data { version } } ' +
      '... on KillSwitchEngagedEvent { id type data { engaged reason } } } } }';
    const answer = await graphql(server, query, { token: account.token });
    expect(answer.body.errors).to.equal(undefined);
    const events = answer.body.data.events;
    expect(events.next_cursor).to.equal(rest.next_cursor);
    expect(events.data.map((e: any) => [e.__typename, e.id])).to.deep.equal([
      ['PolicyCreatedEvent', rest.data[0].id],
      ['KillSwitchEngagedEvent', rest.data[1].id],
    ]);
    expect(events.data[1].data).to.deep.equal({ engaged: true, reason: 'channels' });
    const single = await graphql(server, `query($id: ID!) { event(id: $id) { ... on PolicyCreatedEvent { data { version } } } }`, {
      token: account.token,
      variables: { id: rest.data[0].id },
    });
    expect(single.body.data.event.data.version).to.equal(1);

    const mcp = await connectMcp(server, account.token);
    try {
      const listed = await callTool(mcp, 'listEvents', {});
      expect(listed.ok && listed.value).to.deep.equal(rest);
      const got = await callTool(mcp, 'getEvent', { id: rest.data[1].id });
      expect(got.ok && got.value).to.deep.equal(rest.data[1]);
    } finally {
      await mcp.close();
    }
  });

  it('a reader never passes an event that commits later with an earlier position: held back until it commits', async () => {
    const account = await server.account(['read', 'trade']);
    await createPolicy(server, account.token);
    const start = (await readFeed(account.token, undefined, '', 1)).cursor;
    const { db } = server.context.store;
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    // A transaction takes its position first (its id), then stays open while a later one commits.
    const slow = db.transaction().execute(async (trx) => {
      const at = new Date();
      await publish(trx, [
        {
          accountId: account.accountId,
          type: 'kill_switch.engaged',
          at,
          data: { engaged: true, reason: 'slow', engaged_at: at.toISOString(), engaged_by: 'test', level: 'account' },
        },
      ]);
      written();
      await held;
    });
    await wrote;
    if (server.database.url) {
      // On PostgreSQL the later write commits while the first is open; the feed must hold it back.
      await server.api.post('/v1/kill-switch', { token: account.token, json: { reason: 'later' } });
      const meanwhile = await readFeed(account.token, start);
      expect(meanwhile.events).to.deep.equal([]);
      expect(meanwhile.cursor).to.equal(start);
      commit();
      await slow;
      const after = await readFeed(account.token, meanwhile.cursor, '', 2);
      expect(after.events.map((e) => e.data.reason)).to.deep.equal(['slow', 'later']);
    } else {
      // The embedded database runs one transaction at a time: nothing can commit behind the open one.
      commit();
      await slow;
      expect((await readFeed(account.token, start, '', 1)).events).to.have.length(1);
    }
  });

  it('concurrent writers and a reader polling meanwhile: the reader sees every event exactly once', async () => {
    const account = await server.account(['read', 'write', 'trade']);
    await createPolicy(server, account.token, { limits: { max_order_notional: 1_000_000, max_daily_notional: 10_000_000 } });
    const orders = await propose(
      server,
      account,
      Array.from({ length: 24 }, () => ({ symbol: 'BND', side: 'buy' as const, quantity: '1' })),
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    let expected: number | undefined = undefined;
    const reader = (async () => {
      for (let round = 0; round < 100_000; round++) {
        const response = await server.api.get(`/v1/events?limit=5${cursor ? `&cursor=${cursor}` : ''}`, { token: account.token });
        seen.push(...response.body.data.map((e: any) => e.id));
        cursor = response.body.next_cursor;
        // Done once the writers are and the reader has as many as were written (or more: a duplicate fails below).
        if (expected !== undefined && seen.length >= expected && !response.body.has_more) return;
        if (response.body.data.length === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      throw new Error(`the reader saw ${seen.length} of ${expected} events`);
    })();
    const today = new Date().toISOString().slice(0, 10);
    // Approvals (serialised per account by its lock), and writers that take no account lock, all at once.
    await Promise.all([
      ...orders.map((o, i) =>
        i % 3 === 2
          ? server.api.post(`/v1/orders/${o.id}/reject`, { token: account.token })
          : server.api.post(`/v1/orders/${o.id}/approve`, { token: account.token }),
      ),
      ...Array.from({ length: 6 }, () => server.api.post('/v1/reports/daily', { token: account.token, json: { date: today } })),
      ...Array.from({ length: 3 }, (_, i) =>
        createPolicy(server, account.token, { limits: { max_order_notional: 1_000_000 + i, max_daily_notional: 10_000_000 } }),
      ),
    ]);
    const all = await server.context.store.db.selectFrom('events').select('id').where('account_id', '=', account.accountId).execute();
    expected = all.length;
    await reader;
    expect(new Set(seen).size, 'no event twice').to.equal(seen.length);
    expect([...seen].sort()).to.deep.equal(all.map((e) => e.id).sort());
  });
});
