// An account connected to Alpaca (a stand-in speaking Alpaca's published documents), through the MCP tools: the
// portfolio is the broker's, approveOrder places one order with the order's id as client order id and getOrder then
// reads it filled, and a broker that does not answer is an isError result with the broker-unavailable problem and
// nothing decided. REST's own test (test/http/broker-orders.test.ts) covers the broker's behaviours.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { alpacaSuite } from '../support/alpaca-suite.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { until } from '../support/poll.js';
import type { TestServer } from '../support/server.js';
import { createPolicy, propose } from '../support/trading.js';

const KEY_ID = 'PKMCPFLOW';

describe('orders on an account connected to Alpaca (a stand-in), through the MCP tools', function () {
  this.timeout(30_000);
  const suite = alpacaSuite();
  let alpaca: AlpacaStandIn;
  let server: TestServer;
  let account: { token: string; accountId: string; clientId: string };
  let mcp: Client;

  before(async () => {
    ({ alpaca, server } = suite);
    account = await server.account(['read', 'write', 'trade', 'mcp']);
    await createPolicy(server, account.token);
    await suite.connect(account.accountId, KEY_ID);
    mcp = await connectMcp(server, account.token);
    suite.beforeClose(() => mcp.close());
  });

  const tool = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await callTool(mcp, name, args);
    expect(answer.ok, `${name}: ${JSON.stringify(answer)}`).to.equal(true);
    return answer.value;
  };
  const atBroker = (id: string) => alpaca.orders(KEY_ID).filter((o) => o.client_order_id === id);

  it("getPortfolio shows the broker's cash and positions at its prices, and listBrokers shows alpaca active", async () => {
    const portfolio = await tool('getPortfolio', { market: 'US' });
    expect(portfolio.cash).to.equal(20000);
    expect(portfolio.holdings.map((h: any) => [h.symbol, h.quantity, h.average_cost, h.last_price])).to.deep.equal([['BND', 10, 72, 74]]);
    const brokers = await tool('listBrokers');
    expect(brokers.data.find((b: any) => b.id === 'alpaca').status).to.equal('active');
  });

  it("approveOrder places one order at the broker, client_order_id the order's id, and getOrder then reads it filled", async () => {
    const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '3' }]);
    const preview = await tool('previewOrder', { id: order!.id });
    expect([preview.price, preview.cash, preview.decision]).to.deep.equal([330, 20000, 'approve']);
    const approved = await tool('approveOrder', { id: order!.id, preview_id: preview.id });
    expect(['submitted', 'filled']).to.include(approved.status);
    expect(approved.broker).to.include({ id: 'alpaca', rests_until: null });
    expect(approved.filled_quantity).to.be.a('number');
    expect(approved.events.find((e: any) => e.to === 'submitted').client_id).to.equal(account.clientId);

    const filled = await until('the fill', async () => {
      const read = await tool('getOrder', { id: order!.id });
      return read.status === 'filled' ? read : undefined;
    });
    expect(atBroker(order!.id)).to.have.length(1);
    expect(alpaca.requests.filter((r) => r.method === 'POST' && r.path === '/v2/orders')).to.have.length(1);
    expect(filled).to.include({ filled_quantity: 3, average_fill_price: 330 });
    expect(filled.broker).to.include({ id: 'alpaca', order_id: atBroker(order!.id)[0]!.id });
    expect(filled).to.deep.equal((await server.api.get(`/v1/orders/${order!.id}`, { token: account.token })).body);
  });

  it('approveOrder is an isError result with the broker-unavailable problem when the broker does not answer its reads; the order stays proposed', async () => {
    const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '1' }]);
    const preview = await tool('previewOrder', { id: order!.id });
    alpaca.down({ mode: '503' });
    try {
      const refused = await callTool(mcp, 'approveOrder', { id: order!.id, preview_id: preview.id });
      if (refused.ok) expect.fail(`approved while the broker was down: ${JSON.stringify(refused.value)}`);
      expect(refused.result.isError).to.equal(true);
      expect(refused.problem).to.include({ type: `${server.url}/problems/broker-unavailable`, status: 503 });
      expect(refused.problem.retry_after).to.be.a('number').above(0);
      expect(refused.problem.request_id).to.be.a('string');
    } finally {
      alpaca.up();
    }
    expect((await tool('getOrder', { id: order!.id })).status).to.equal('proposed');
    expect(atBroker(order!.id)).to.deep.equal([]);
  });
});
