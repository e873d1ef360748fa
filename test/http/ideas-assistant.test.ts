import { expect } from 'chai';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { ideasAccount, ideasPolicy, slug } from '../support/ideas.js';
import { startTestServer, type TestServer } from '../support/server.js';

const clock = { now: () => new Date('2026-11-20T15:00:00Z') };

describe('trade ideas from the assistant (an LLM behind an OpenAI-compatible API)', () => {
  let server: TestServer;
  let llm: FakeLlm;

  before(async () => {
    llm = await startFakeLlm();
    server = await startTestServer(
      { ASSISTANT_BASE_URL: llm.url, ASSISTANT_API_KEY: 'test-key', ASSISTANT_MODEL: 'fake-model', ASSISTANT_TIMEOUT_MS: '1000' },
      { clock },
    );
  });
  after(async () => {
    await server.close();
    await llm.close();
  });

  const account = () => ideasAccount(server);
  const createPolicy = (token: string) => ideasPolicy(server, token);
  const generate = (token: string, json: Record<string, unknown>) => server.api.post('/v1/ideas/generate', { token, json });

  const askAssistant = (token: string, instructions?: string) =>
    generate(token, { mode: 'assistant', market: 'US', ...(instructions ? { instructions } : {}) });

  it('stores the validated proposal as an idea and sends the portfolio, policy, universe and instructions', async () => {
    const { trade } = await account();
    await createPolicy(trade);
    llm.reply({
      content: JSON.stringify({
        rationale: 'Start with a bond-heavy position.',
        orders: [
          { symbol: 'BND', side: 'buy', quantity: 10, order_type: 'market' },
          { symbol: 'VTI', side: 'buy', quantity: 5.5, order_type: 'limit', limit_price: 400 },
          { symbol: 'AAPL', side: 'sell', quantity: 1, order_type: 'market', limit_price: null },
        ],
      }),
    });
    const before = llm.requests.length;
    const response = await askAssistant(trade, 'Prefer bonds this month.');
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    const [idea] = response.body.ideas;
    expect(idea.mode).to.equal('assistant');
    expect(idea.rationale)
      .to.match(/^Start with a bond-heavy position\. /)
      .and.match(/Dropped sell 1 AAPL: the account holds 0 AAPL/);
    expect(idea.orders.map((o: any) => [o.symbol, o.side, o.quantity, o.order_type, o.limit_price, o.status])).to.deep.equal([
      ['BND', 'buy', 10, 'market', null, 'proposed'],
      ['VTI', 'buy', 5.5, 'limit', 400, 'proposed'],
    ]);
    expect(idea.orders[1].notional).to.equal(2200);

    expect(llm.requests).to.have.length(before + 1);
    const sent = llm.requests[before]!;
    expect(sent.path).to.equal('/v1/chat/completions');
    expect(sent.headers.authorization).to.equal('Bearer test-key');
    expect(sent.body).to.include({ model: 'fake-model', temperature: 0 });
    expect(sent.body.response_format).to.deep.equal({ type: 'json_object' });
    const [system, user] = sent.body.messages;
    expect(system.role).to.equal('system');
    expect(system.content)
      .to.match(/"rationale"/)
      .and.match(/"orders"/);
    expect(user.role).to.equal('user');
    expect(user.content).to.include('"cash":100000').and.include('"target_allocation":[{"symbol":"VTI","weight":0.6}');
    expect(user.content).to.include('"max_order_notional":100000').and.include('"symbol":"COST"').and.include('Prefer bonds this month.');
  });

  const failures: [string, Parameters<FakeLlm['reply']>[0], RegExp][] = [
    ['malformed JSON', { content: 'Sure! Here are your trades: {"orders": [' }, /not JSON/],
    [
      'schema-violating output',
      {
        content: JSON.stringify({
          rationale: 'x',
          orders: [{ symbol: 'VTI', side: 'hold', quantity: -1, order_type: 'market', note: 'extra' }],
        }),
      },
      /expected shape/,
    ],
    [
      'a limit order without a limit price',
      { content: JSON.stringify({ rationale: 'x', orders: [{ symbol: 'VTI', side: 'buy', quantity: 1, order_type: 'limit' }] }) },
      /limit_price/,
    ],
    [
      'more than 20 orders',
      {
        content: JSON.stringify({
          rationale: 'x',
          orders: Array(21).fill({ symbol: 'VTI', side: 'buy', quantity: 1, order_type: 'market' }),
        }),
      },
      /expected shape/,
    ],
    [
      'an unknown symbol',
      { content: JSON.stringify({ rationale: 'x', orders: [{ symbol: 'ZZZZ', side: 'buy', quantity: 1, order_type: 'market' }] }) },
      /ZZZZ/,
    ],
    ['HTTP 500', { status: 500 }, /HTTP 500/],
    ['a timeout', { hang: true }, /did not answer within 1000 ms/],
  ];
  for (const [what, reply, detail] of failures) {
    it(`returns 502 assistant-failed for ${what} and stores nothing`, async () => {
      const { trade } = await account();
      await createPolicy(trade);
      llm.reply(reply);
      const response = await askAssistant(trade);
      expect(response.status).to.equal(502);
      expect(slug(response.body)).to.equal('assistant-failed');
      expect(response.body.detail).to.match(detail);
      expect((await server.api.get('/v1/ideas', { token: trade })).body.data).to.deep.equal([]);
      expect((await server.api.get('/v1/orders', { token: trade })).body.data).to.deep.equal([]);
    });
  }
});
