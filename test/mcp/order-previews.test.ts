// Previews over MCP and GraphQL: the preview tool and mutation answer REST's preview; MCP's approve tool requires
// `preview_id` (its input schema says so, and a call without it is refused with nothing decided), then approves bound
// to the preview, refusing a stale one as REST does; GraphQL approves with or without one.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { graphql } from '../graphql/support.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { FixedPrices } from '../support/prices.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { engage, release } from '../../src/services/kill-switch.js';
import { createPolicy, manualClock, propose } from '../support/trading.js';

const START = '2026-11-20T15:00:00.000Z';
const PREVIEW = `{ id order_id created_at expires_at policy_version price price_as_of notional cash cash_after weight_after
  target_weight checks { check passed message } decision }`;

describe('previews over MCP and GraphQL', () => {
  const clock = manualClock(START);
  const prices = new FixedPrices();
  let server: TestServer;
  let account: { token: string; accountId: string; clientId: string };
  let mcp: Client;
  before(async () => {
    server = await startTestServer({}, { clock, prices });
    account = await server.account(['read', 'write', 'trade', 'mcp']);
    await createPolicy(server, account.token);
    mcp = await connectMcp(server, account.token);
  });
  after(async () => {
    await mcp?.close();
    await server?.close();
  });
  beforeEach(() => {
    clock.set(START);
    prices.set('VTI', '330.00');
  });

  let shares = 10;
  /** A proposed buy of VTI, each of another quantity (the risk gate blocks a twin of one bought within a minute). */
  const order = async () => (await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: String(shares++) }]))[0]!;
  const rest = async (id: string) => (await server.api.post(`/v1/orders/${id}/preview`, { token: account.token })).body;
  const gql = async (query: string, variables: Record<string, unknown>) => {
    const response = await graphql(server, query, { token: account.token, variables });
    expect(response.status).to.equal(200);
    return response.body;
  };
  /** A preview without what makes each one its own (its id, its checks' order aside). */
  const same = ({ id, ...preview }: Record<string, unknown>) => (expect(id).to.match(/^prv_/), preview);

  it('the preview tool answers what REST answers, changing nothing, and its description says to show it first', async () => {
    const o = await order();
    const viaMcp = await callTool(mcp, 'previewOrder', { id: o.id });
    expect(viaMcp.ok, JSON.stringify(viaMcp)).to.equal(true);
    expect(same(viaMcp.value)).to.deep.equal(same(await rest(o.id)));
    const tools = new Map((await mcp.listTools()).tools.map((t) => [t.name, t]));
    expect(tools.get('previewOrder')!.annotations).to.include({ readOnlyHint: true });
    expect(tools.get('previewOrder')!.description).to.include('an assistant shows it to the person before approving');
    expect(tools.get('approveOrder')!.inputSchema.required).to.deep.equal(['id', 'preview_id']);
    expect((await server.api.get(`/v1/orders/${o.id}`, { token: account.token })).body.status).to.equal('proposed');
  });

  it('the approve tool refuses a call without preview_id, deciding nothing, and approves bound to a fresh preview', async () => {
    const o = await order();
    const refused = await callTool(mcp, 'approveOrder', { id: o.id });
    expect(refused.ok).to.equal(false);
    expect(refused.ok || [refused.problem.type, refused.problem.errors]).to.deep.equal([
      `${server.url}/problems/validation-error`,
      [{ pointer: '/preview_id', detail: 'is required over MCP (the contract marks it x-mcp-required)' }],
    ]);
    expect((await server.api.get(`/v1/orders/${o.id}`, { token: account.token })).body.status).to.equal('proposed');
    const preview = await callTool(mcp, 'previewOrder', { id: o.id });
    const approved = await callTool(mcp, 'approveOrder', { id: o.id, preview_id: preview.ok && preview.value.id });
    expect(approved.ok && [approved.value.status, approved.value.preview_id]).to.deep.equal(['filled', preview.ok && preview.value.id]);
  });

  it('the approve tool refuses a stale preview with the preview-stale problem; the order stays proposed', async () => {
    const o = await order();
    const preview = await callTool(mcp, 'previewOrder', { id: o.id });
    clock.advance(120_000);
    const refused = await callTool(mcp, 'approveOrder', { id: o.id, preview_id: preview.ok && preview.value.id });
    expect(refused.ok || [refused.problem.type, refused.problem.stale_reasons]).to.deep.equal([
      `${server.url}/problems/preview-stale`,
      ['expired'],
    ]);
    expect((await server.api.get(`/v1/orders/${o.id}`, { token: account.token })).body.status).to.equal('proposed');
  });

  it('GraphQL has previewOrder with the same answer, and approveOrder bound to it or refused as stale', async () => {
    const o = await order();
    const { previewOrder } = (await gql(`mutation($id: ID!) { previewOrder(id: $id) ${PREVIEW} }`, { id: o.id })).data;
    expect(same(previewOrder)).to.deep.equal(same(await rest(o.id)));
    prices.set('VTI', '340.00');
    const approve = `mutation($id: ID!, $input: ApproveOrderRequest) { approveOrder(id: $id, input: $input) { status preview_id events { to preview_id } } }`;
    const stale = await gql(approve, { id: o.id, input: { preview_id: previewOrder.id } });
    expect([stale.data.approveOrder, stale.errors![0].extensions.code, stale.errors![0].extensions.stale_reasons]).to.deep.equal([
      null,
      'PREVIEW_STALE',
      ['price_moved'],
    ]);
    const again = (await gql(`mutation($id: ID!) { previewOrder(id: $id) { id price } }`, { id: o.id })).data.previewOrder;
    expect(again.price).to.equal(340);
    const bound = await gql(approve, { id: o.id, input: { preview_id: again.id } });
    expect(bound.errors, JSON.stringify(bound.errors)).to.equal(undefined);
    const approved = bound.data.approveOrder;
    expect(approved).to.deep.equal({
      status: 'filled',
      preview_id: again.id,
      events: [
        { to: 'proposed', preview_id: null },
        { to: 'submitted', preview_id: again.id },
        { to: 'filled', preview_id: null },
      ],
    });
    // Without a preview, as before.
    const plain = await order();
    expect((await gql(approve, { id: plain.id })).data.approveOrder.status).to.equal('filled');
  });

  // Each reason a preview goes stale, on each channel: the approval is refused as REST refuses it, the order proposed.
  const changes: [string, () => Promise<void>][] = [
    ['expired', async () => clock.advance(120_000)],
    ['policy_changed', async () => void (await createPolicy(server, account.token))],
    ['price_moved', async () => prices.set('VTI', '334.00')],
    [
      'kill_switch_engaged',
      async () => {
        clock.advance(1_000);
        await engage(server.context.store.db, account.accountId, 'ops', 'a pause', clock.now());
      },
    ],
  ];
  const viaChannel = {
    mcp: async (id: string) => {
      const preview = await callTool(mcp, 'previewOrder', { id });
      return async () => {
        const refused = await callTool(mcp, 'approveOrder', { id, preview_id: preview.ok && preview.value.id });
        return refused.ok ? undefined : [refused.problem.type, refused.problem.stale_reasons];
      };
    },
    graphql: async (id: string) => {
      const { previewOrder } = (await gql(`mutation($id: ID!) { previewOrder(id: $id) { id } }`, { id })).data;
      return async () => {
        const body = await gql(`mutation($id: ID!, $input: ApproveOrderRequest) { approveOrder(id: $id, input: $input) { status } }`, {
          id,
          input: { preview_id: previewOrder.id },
        });
        const error = body.errors?.[0];
        return error && [error.extensions.type, error.extensions.stale_reasons];
      };
    },
  };
  for (const channel of ['mcp', 'graphql'] as const) {
    it(`${channel}: an approval bound to a stale preview is refused for each reason, the order staying proposed`, async () => {
      for (const [reason, change] of changes) {
        clock.set(START);
        prices.set('VTI', '330.00');
        await release(server.context.store.db, account.accountId, 'ops', null, clock.now());
        const o = await order();
        const approve = await viaChannel[channel](o.id);
        await change();
        expect(await approve(), `${channel}: ${reason}`).to.deep.equal([`${server.url}/problems/preview-stale`, [reason]]);
        expect((await server.api.get(`/v1/orders/${o.id}`, { token: account.token })).body.status, reason).to.equal('proposed');
      }
    });
  }
});
