import { expect } from 'chai';
import { AdjustablePrices } from '../support/prices.js';
import { rpc } from '../support/mcp.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, propose, type PolicyOverrides } from '../support/trading.js';

type Channel = 'rest' | 'graphql' | 'mcp';
const CHANNELS: Channel[] = ['rest', 'graphql', 'mcp'];

/** What a channel answered for an approval: the problem slug (or null on success), the order, and whether it replayed. */
interface Approval {
  slug: string | null;
  order: { id: string; status: string } | undefined;
  replayed: boolean;
  raw: unknown;
}

const sameAnswer = (raw: unknown) => ({ ...(raw as object), request_id: undefined });
const slugOf = (type: unknown) => (typeof type === 'string' ? type.split('/').pop()! : null);

/** An Idempotency-Key changes what is stored in no way, on any channel: it only adds the replay of the first answer. */
describe('Idempotency-Key never changes the effect, on every channel', () => {
  let server: TestServer;
  const prices = new AdjustablePrices();
  let keys = 0;

  before(async () => {
    prices.reset(); // each run of the suite starts from the plain feed (a mutation run runs it many times in one process)
    server = await startTestServer({}, { prices });
  });
  after(() => server.close());

  /** The preview an approval over MCP is bound to: one made now, unless the test made one before (`previews`). */
  const previews = new Map<string, string>();
  async function previewed(token: string, id: string): Promise<string> {
    const made = previews.get(id);
    if (made) return made;
    const response = await rpc(server, token, 'tools/call', { name: 'previewOrder', arguments: { id } });
    expect(response.body.result.isError, JSON.stringify(response.body)).to.equal(undefined);
    previews.set(id, response.body.result.structuredContent.id);
    return previews.get(id)!;
  }

  async function approve(channel: Channel, token: string, id: string, key?: string): Promise<Approval> {
    const headers: Record<string, string> = key === undefined ? {} : { 'idempotency-key': key };
    if (channel === 'rest') {
      const response = await server.api.post(`/v1/orders/${id}/approve`, { token, headers });
      const failed = response.status >= 400;
      return {
        slug: failed ? slugOf(response.body.type) : null,
        order: failed ? response.body.order : response.body,
        replayed: response.headers.get('idempotent-replayed') === 'true',
        raw: response.body,
      };
    }
    if (channel === 'graphql') {
      const response = await fetch(`${server.api.baseUrl}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: 'mutation($id: ID!) { approveOrder(id: $id) { id status } }', variables: { id } }),
      });
      const body = await response.json();
      const error = body.errors?.[0];
      return {
        slug: error ? slugOf(error.extensions.type) : null,
        order: error ? error.extensions.order : body.data.approveOrder,
        replayed: response.headers.get('idempotent-replayed') === 'true',
        raw: body,
      };
    }
    const response = await rpc(
      server,
      token,
      'tools/call',
      { name: 'approveOrder', arguments: { id, preview_id: await previewed(token, id) } },
      headers,
    );
    const result = response.body.result;
    const problem = result.isError ? JSON.parse(result.content[0].text) : undefined;
    return {
      slug: problem ? slugOf(problem.type) : null,
      order: problem ? problem.order : result.structuredContent,
      replayed: response.headers.get('idempotent-replayed') === 'true',
      raw: result,
    };
  }

  /** What the database holds of an order: its state, its events (who aside), its fills. */
  async function stored(orderId: string) {
    const db = server.database.db.kysely;
    const order = await db.selectFrom('orders').select('status').where('id', '=', orderId).executeTakeFirstOrThrow();
    const events = await db
      .selectFrom('order_events')
      .select(['from_status', 'to_status', 'reason', 'failed_checks'])
      .where('order_id', '=', orderId)
      .orderBy('id')
      .execute();
    const fills = await db.selectFrom('fills').select('price').where('order_id', '=', orderId).execute();
    return {
      status: order.status,
      events: events.map((e) => [e.from_status, e.to_status, e.reason, (e.failed_checks ?? []).map((f) => f.check)]),
      fills: fills.length,
    };
  }

  async function holder(limits: PolicyOverrides['limits'], ...trades: Parameters<typeof propose>[2]) {
    const account = await server.account(['read', 'write', 'trade', 'mcp']);
    await createPolicy(server, account.token, { limits });
    return { ...account, orders: await propose(server, account, trades) };
  }

  it(
    'a refused approval (the policy check blocks the order) stores the same blocked order and event with and without a key, ' +
      'over REST, GraphQL and MCP',
    async () => {
      const states = [];
      for (const channel of CHANNELS) {
        for (const keyed of [false, true]) {
          const { token, orders } = await holder({ max_order_notional: 100 }, { symbol: 'VTI', side: 'buy', quantity: '10' });
          const key = keyed ? `blocked-${++keys}` : undefined;
          const first = await approve(channel, token, orders[0]!.id, key);
          const where = `${channel}${keyed ? ' with a key' : ''}`;
          expect(first.slug, `${where}: ${JSON.stringify(first.raw)}`).to.equal('checks-failed');
          expect(first.order?.status, where).to.equal('blocked');
          const state = await stored(orders[0]!.id);
          expect(state.status, where).to.equal('blocked');
          states.push(state);
          // A retry: with the key, the first answer again (nothing runs); without, the order is blocked for good.
          const again = await approve(channel, token, orders[0]!.id, key);
          if (keyed) {
            expect(again.replayed, where).to.equal(true);
            // REST names each request in its problem (request_id); the rest of the answer is the first one's.
            expect(sameAnswer(again.raw), where).to.deep.equal(sameAnswer(first.raw));
          } else {
            expect([again.slug, again.replayed], where).to.deep.equal(['invalid-state', false]);
          }
          expect(await stored(orders[0]!.id), `${where}, retried`).to.deep.equal(state);
        }
      }
      expect(states[0]!.events.map((e) => e[1])).to.deep.equal(['proposed', 'blocked']);
      expect(states[0]!.events[1]![3]).to.include('policy.max_order_notional');
      for (const state of states) expect(state).to.deep.equal(states[0]);
    },
  );

  it('an approval that fails with 500 (the price feed down) stores nothing under its key: the retry runs and fills, over REST, GraphQL and MCP', async () => {
    for (const channel of CHANNELS) {
      const { token, orders } = await holder({}, { symbol: 'VTI', side: 'buy', quantity: '1.7' });
      const key = `feed-down-${++keys}`;
      // Over MCP the approval names a preview, made while the feed answers.
      if (channel === 'mcp') await previewed(token, orders[0]!.id);
      prices.failing = true;
      const failed = await approve(channel, token, orders[0]!.id, key).finally(() => (prices.failing = false));
      expect([failed.slug, failed.replayed], `${channel}: ${JSON.stringify(failed.raw)}`).to.deep.equal(['internal-error', false]);
      expect(await stored(orders[0]!.id), channel).to.deep.include({ status: 'proposed', fills: 0 });
      const retried = await approve(channel, token, orders[0]!.id, key);
      expect([retried.slug, retried.order?.status, retried.replayed], channel).to.deep.equal([null, 'filled', false]);
    }
  });

  it('the kill switch an approval engages on the day’s loss stays engaged with and without a key, over REST, GraphQL and MCP', async () => {
    const db = server.database.db.kysely;
    for (const channel of CHANNELS) {
      for (const keyed of [false, true]) {
        const where = `${channel}${keyed ? ' with a key' : ''}`;
        const { token, accountId, orders } = await holder(
          { max_daily_loss: 1000, max_position_weight: 1, max_order_notional: 100000 },
          { symbol: 'QQQ', side: 'buy', quantity: '50' },
          { symbol: 'BND', side: 'buy', quantity: '1' },
        );
        expect((await approve('rest', token, orders[0]!.id)).order?.status, where).to.equal('filled');
        prices.scale('QQQ', 0.9);
        try {
          const refused = await approve(channel, token, orders[1]!.id, keyed ? `loss-${++keys}` : undefined);
          expect(refused.slug, `${where}: ${JSON.stringify(refused.raw)}`).to.equal('kill-switch-engaged');
        } finally {
          prices.scale('QQQ', 1);
        }
        const kill = await db.selectFrom('kill_switches').selectAll().where('scope', '=', accountId).executeTakeFirst();
        expect(kill, where).to.include({ engaged: true, engaged_by: 'system' });
        const events = await db.selectFrom('kill_switch_events').select('action').where('scope', '=', accountId).execute();
        expect(
          events.map((e) => e.action),
          where,
        ).to.deep.equal(['engaged']);
        expect((await stored(orders[1]!.id)).status, where).to.equal('proposed');
      }
    }
  });

  it(
    'a keyed MCP approveOrder retried answers the identical tool result, marked as a replay, with one fill; ' +
      'another order with the key is refused',
    async () => {
      const { token, orders } = await holder(
        {},
        { symbol: 'VTI', side: 'buy', quantity: '2' },
        { symbol: 'BND', side: 'buy', quantity: '1' },
      );
      const call = async (id: string) =>
        rpc(
          server,
          token,
          'tools/call',
          { name: 'approveOrder', arguments: { id, preview_id: await previewed(token, id) } },
          { 'idempotency-key': 'mcp-approve' },
        );
      const first = await call(orders[0]!.id);
      expect(first.status).to.equal(200);
      expect(first.body.result.structuredContent, JSON.stringify(first.body)).to.include({ status: 'filled' });
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      const again = await call(orders[0]!.id);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body.result).to.deep.equal(first.body.result);
      expect(await stored(orders[0]!.id)).to.include({ status: 'filled', fills: 1 });
      const other = await call(orders[1]!.id);
      expect(other.body.result.isError).to.equal(true);
      expect(slugOf(JSON.parse(other.body.result.content[0].text).type)).to.equal('idempotency-key-reused');
      expect((await stored(orders[1]!.id)).status).to.equal('proposed');
    },
  );

  it('refuses a keyed GraphQL document of more than one mutation, running none of them', async () => {
    const { token, orders } = await holder(
      {},
      { symbol: 'VTI', side: 'buy', quantity: '1' },
      { symbol: 'BND', side: 'buy', quantity: '1' },
    );
    const response = await fetch(`${server.api.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'two-mutations' },
      body: JSON.stringify({
        query:
          'mutation($a: ID!, $b: ID!) { a: approveOrder(id: $a) { id } ...Second } fragment Second on Mutation { b: approveOrder(id: $b) { id } }',
        variables: { a: orders[0]!.id, b: orders[1]!.id },
      }),
    });
    expect(response.status).to.equal(400);
    const body = (await response.json()) as { type: string; detail: string };
    expect(slugOf(body.type)).to.equal('malformed-request');
    expect(body.detail).to.include('runs 2');
    for (const order of orders) expect((await stored(order.id)).status).to.equal('proposed');
  });
});
