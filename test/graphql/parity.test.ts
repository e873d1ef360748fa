import { expect } from 'chai';
import { createGraphQLSchema } from '../../src/graphql/schema.js';
import { AdjustablePrices } from '../support/prices.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, manualClock, propose } from '../support/trading.js';
import { expectSameAnswer, selectAll, unaliased } from './selection.js';
import { graphql } from './support.js';

const schema = createGraphQLSchema();
const all = (type: string) => selectAll(schema, type);

/** A GraphQL error's problem (extensions without `code`) and a REST problem (without instance and request_id). */
const problemOf = (error: { extensions: Record<string, unknown> }) => {
  const { code: _code, ...problem } = error.extensions;
  return problem;
};
const restProblem = (body: Record<string, unknown>) => {
  const { instance: _instance, request_id: _requestId, ...problem } = body;
  return problem;
};

function policyBody(disclosureVersion: string, limits: Record<string, unknown> = {}) {
  return {
    limits: {
      max_order_notional: 50_000,
      max_position_weight: 0.8,
      max_daily_notional: 500_000,
      max_daily_loss: 50_000,
      allowed_markets: ['US'],
      ...limits,
    },
    target_allocation: [
      { symbol: 'VTI', weight: 0.6 },
      { symbol: 'BND', weight: 0.4 },
    ],
    consent: { disclosure_version: disclosureVersion, accepted: true, signer_name: 'Graph Holder' },
  };
}

describe('GraphQL and REST give the same answers on the same account', () => {
  let server: TestServer;
  const clock = manualClock('2026-11-20T15:00:00Z');

  before(async () => {
    server = await startTestServer({}, { clock, prices: new AdjustablePrices() });
  });
  after(() => server.close());

  async function holder(withPolicy = true) {
    const account = await server.account(['read', 'write', 'trade']);
    if (withPolicy) await createPolicy(server, account.token);
    const gql = async (query: string, variables?: Record<string, unknown>) => {
      const response = await graphql(server, query, { token: account.token, variables });
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      return response.body;
    };
    const data = async (query: string, variables?: Record<string, unknown>) => {
      const body = await gql(query, variables);
      expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
      return body.data;
    };
    const rest = async (method: string, path: string, json?: unknown) =>
      (await server.api.request(method, path, { token: account.token, json })).body;
    return { ...account, gql, data, rest, propose: (...trades: Parameters<typeof propose>[2]) => propose(server, account, trades) };
  }

  it('policies: createPolicy, currentPolicy, policy(version), policies and disclosure', async () => {
    const h = await holder(false);
    const disclosure = (await h.data(`{ disclosure ${all('Disclosure')} }`)).disclosure;
    expectSameAnswer(disclosure, await h.rest('GET', '/v1/disclosures/current'));
    const created = (
      await h.data(`mutation($input: PolicyCreateRequest!) { createPolicy(input: $input) ${all('Policy')} }`, {
        input: policyBody(disclosure.version),
      })
    ).createPolicy;
    expect(created.version).to.equal(1);
    expectSameAnswer(created, await h.rest('GET', '/v1/policies/1'));
    await createPolicy(server, h.token);
    const reads = await h.data(
      `{ currentPolicy ${all('Policy')} policy(version: 1) ${all('Policy')} policies(limit: 1) ${all('PolicyList')} }`,
    );
    expectSameAnswer(reads.currentPolicy, await h.rest('GET', '/v1/policies/current'));
    expectSameAnswer(reads.policy, created);
    expectSameAnswer(reads.policies, await h.rest('GET', '/v1/policies?limit=1'));
    const next = await h.data(`query($cursor: String) { policies(limit: 1, cursor: $cursor) ${all('PolicyList')} }`, {
      cursor: reads.policies.next_cursor,
    });
    expectSameAnswer(next.policies, await h.rest('GET', `/v1/policies?limit=1&cursor=${reads.policies.next_cursor}`));
  });

  it('ideas and orders: generateIdeas, ideas, idea, orders, order, then approve, reject and cancel, and the portfolio', async () => {
    const h = await holder();
    const generated = (await h.data(`mutation { generateIdeas(input: {mode: invest_cash, market: "US"}) ${all('GenerateIdeasResponse')} }`))
      .generateIdeas;
    const [idea] = generated.ideas;
    expect(idea.orders.length).to.be.at.least(2);
    expectSameAnswer(idea, await h.rest('GET', `/v1/ideas/${idea.id}`));
    const reads = await h.data(
      `query($id: ID!, $order: ID!) { idea(id: $id) ${all('Idea')} ideas(mode: invest_cash, limit: 2) ${all('IdeaList')} ` +
        `orders(idea_id: $id, limit: 1) ${all('OrderList')} order(id: $order) ${all('Order')} }`,
      { id: idea.id, order: idea.orders[0].id },
    );
    expectSameAnswer(reads.idea, idea);
    expectSameAnswer(reads.ideas, await h.rest('GET', '/v1/ideas?mode=invest_cash&limit=2'));
    expectSameAnswer(reads.orders, await h.rest('GET', `/v1/orders?idea_id=${idea.id}&limit=1`));
    expectSameAnswer(reads.order, await h.rest('GET', `/v1/orders/${idea.orders[0].id}`));

    const [first, second] = idea.orders;
    const approved = (await h.data(`mutation($id: ID!) { approveOrder(id: $id) ${all('Order')} }`, { id: first.id })).approveOrder;
    expect(approved.status).to.equal('filled');
    expectSameAnswer(approved, await h.rest('GET', `/v1/orders/${first.id}`));
    const rejected = (
      await h.data(`mutation($id: ID!) { rejectOrder(id: $id, input: {reason: "not today"}) ${all('Order')} }`, { id: second.id })
    ).rejectOrder;
    expect(rejected.events.at(-1)).to.include({ to: 'rejected', reason: 'not today' });
    expectSameAnswer(rejected, await h.rest('GET', `/v1/orders/${second.id}`));
    const [third] = await h.propose({ symbol: 'BND', side: 'buy', quantity: '1' });
    const cancelled = (await h.data(`mutation($id: ID!) { cancelOrder(id: $id) ${all('Order')} }`, { id: third!.id })).cancelOrder;
    expect(cancelled.status).to.equal('cancelled');
    expectSameAnswer(cancelled, await h.rest('GET', `/v1/orders/${third!.id}`));
    expectSameAnswer((await h.data(`{ orders ${all('OrderList')} }`)).orders, await h.rest('GET', '/v1/orders'));
    const portfolio = (await h.data(`{ portfolio(market: "US") ${all('Portfolio')} }`)).portfolio;
    expect(portfolio.holdings).to.have.length(1);
    expectSameAnswer(portfolio, await h.rest('GET', '/v1/portfolio?market=US'));
  });

  it('reports: generateDailyReport, dailyReport and dailyReports', async () => {
    const h = await holder();
    const [order] = await h.propose({ symbol: 'VTI', side: 'buy', quantity: '2' });
    await h.rest('POST', `/v1/orders/${order!.id}/approve`);
    const report = (await h.data(`mutation { generateDailyReport(input: {date: "2026-11-20"}) ${all('DailyReport')} }`))
      .generateDailyReport;
    expect(report.orders.filled).to.equal(1);
    expectSameAnswer(report, await h.rest('GET', '/v1/reports/daily/2026-11-20'));
    const reads = await h.data(
      `{ dailyReport(date: "2026-11-20") ${all('DailyReport')} dailyReports(from: "2026-11-01", to: "2026-11-20", limit: 5) ${all('DailyReportList')} }`,
    );
    expectSameAnswer(reads.dailyReport, report);
    expectSameAnswer(reads.dailyReports, await h.rest('GET', '/v1/reports/daily?from=2026-11-01&to=2026-11-20&limit=5'));
  });

  it('brokers (paged), the kill switch (read and engaged) and goal feasibility', async () => {
    const h = await holder(false);
    const first = (await h.data(`{ brokers(limit: 2) ${all('BrokerList')} }`)).brokers;
    expectSameAnswer(first, await h.rest('GET', '/v1/brokers?limit=2'));
    const rest = (await h.data(`query($c: String) { brokers(cursor: $c) ${all('BrokerList')} }`, { c: first.next_cursor })).brokers;
    expectSameAnswer(rest, await h.rest('GET', `/v1/brokers?cursor=${first.next_cursor}`));

    expectSameAnswer((await h.data(`{ killSwitch ${all('KillSwitch')} }`)).killSwitch, await h.rest('GET', '/v1/kill-switch'));
    const engaged = (await h.data(`mutation { engageKillSwitch(input: {reason: "graph stop"}) ${all('KillSwitch')} }`)).engageKillSwitch;
    expect(engaged).to.include({ engaged: true, reason: 'graph stop', level: 'account', engaged_by: h.clientId });
    expectSameAnswer(engaged, await h.rest('GET', '/v1/kill-switch'));

    const input = {
      capital: 10_000,
      target: 25_000,
      horizon_years: 10,
      market: 'US',
      monthly_contribution: 200,
      assumptions: { expected_return: 0.06, volatility: 0.15 },
    };
    const feasibility = (
      await h.data(`query($input: GoalFeasibilityRequest!) { goalFeasibility(input: $input) ${all('GoalFeasibilityResult')} }`, { input })
    ).goalFeasibility;
    expect(feasibility.suggestions).to.have.length(4);
    expectSameAnswer(unaliased(feasibility), await h.rest('POST', '/v1/goals/feasibility', input));
  });

  describe('errors carry the problem REST answers', () => {
    it('a blocked order: CHECKS_FAILED with the same failed_checks', async () => {
      const h = await holder();
      const [viaRest, viaGraphql] = await h.propose(
        { symbol: 'VTI', side: 'buy', quantity: '400' },
        { symbol: 'VTI', side: 'buy', quantity: '400' },
      );
      const rest = await h.rest('POST', `/v1/orders/${viaRest!.id}/approve`);
      expect(rest.status).to.equal(422);
      const body = await h.gql('mutation($id: ID!) { approveOrder(id: $id) { id } }', { id: viaGraphql!.id });
      expect(body.data).to.deep.equal({ approveOrder: null });
      const [error] = body.errors!;
      expect(error.extensions.code).to.equal('CHECKS_FAILED');
      expect(error.message).to.equal(rest.detail);
      const { order: graphqlOrder, ...problem } = problemOf(error) as Record<string, any>;
      const { order: restOrder, ...expected } = restProblem(rest) as Record<string, any>;
      expect(problem).to.deep.equal(expected);
      expect(problem.failed_checks.map((f: { check: string }) => f.check)).to.include('policy.max_order_notional');
      expect(graphqlOrder).to.include({ id: viaGraphql!.id, status: 'blocked' });
      expect({
        ...graphqlOrder,
        id: restOrder.id,
        events: restOrder.events,
        created_at: restOrder.created_at,
        updated_at: restOrder.updated_at,
        expires_at: restOrder.expires_at,
      }).to.deep.equal(restOrder);
    });

    it('a trigger the state does not allow: INVALID_STATE with current_state and allowed_triggers', async () => {
      const h = await holder();
      const [order] = await h.propose({ symbol: 'BND', side: 'buy', quantity: '1' });
      await h.data('mutation($id: ID!) { rejectOrder(id: $id) { status } }', { id: order!.id });
      const body = await h.gql('mutation($id: ID!) { cancelOrder(id: $id, input: {reason: "too late"}) { status } }', { id: order!.id });
      expect(body.errors![0].extensions).to.include({ code: 'INVALID_STATE', status: 409, current_state: 'rejected' });
      expect(problemOf(body.errors![0])).to.deep.equal(
        restProblem(await h.rest('POST', `/v1/orders/${order!.id}/cancel`, { reason: 'too late' })),
      );
    });

    it('validation: the same failures, pointing at the field’s arguments (parameters by name, the body under /input)', async () => {
      const h = await holder();
      const page = await h.gql('{ orders(limit: 0, symbol: "vti") { next_cursor } }');
      const restPage = restProblem(await h.rest('GET', '/v1/orders?limit=0&symbol=vti'));
      expect(problemOf(page.errors![0])).to.deep.equal({
        ...restPage,
        errors: (restPage.errors as any[]).map((e) => ({ ...e, pointer: e.pointer.replace('/query', '') })),
      });
      expect((problemOf(page.errors![0]).errors as any[]).map((e) => e.pointer).sort()).to.deep.equal(['/limit', '/symbol']);

      const disclosure = await h.rest('GET', '/v1/disclosures/current');
      const bad = policyBody(disclosure.version, { max_position_weight: 2 });
      bad.target_allocation[0]!.symbol = 'not a symbol';
      const created = await h.gql('mutation($input: PolicyCreateRequest!) { createPolicy(input: $input) { version } }', { input: bad });
      const restCreated = restProblem(await h.rest('POST', '/v1/policies', bad));
      expect(problemOf(created.errors![0])).to.deep.equal({
        ...restCreated,
        errors: (restCreated.errors as any[]).map((e) => ({ ...e, pointer: `/input${e.pointer}` })),
      });
      expect((problemOf(created.errors![0]).errors as any[]).map((e) => e.pointer).sort()).to.deep.equal([
        '/input/limits/max_position_weight',
        '/input/target_allocation/0/symbol',
      ]);

      const report = await h.gql('mutation { generateDailyReport(input: {date: "2026-02-30"}) { id } }');
      expect(problemOf(report.errors![0])).to.deep.equal({
        ...restProblem(await h.rest('POST', '/v1/reports/daily', { date: '2026-02-30' })),
        errors: [{ pointer: '/input/date', detail: 'must match format "date"' }],
      });
    });

    it('not found, a missing policy and a missing consent, as REST answers them', async () => {
      const h = await holder(false);
      const missing = await h.gql('{ order(id: "ord_none") { id } policy(version: 7) { version } currentPolicy { version } }');
      const byField = Object.fromEntries(missing.errors!.map((e: any) => [e.path[0], problemOf(e)]));
      expect(missing.data).to.deep.equal({ order: null, policy: null, currentPolicy: null });
      expect(byField.order).to.deep.equal(restProblem(await h.rest('GET', '/v1/orders/ord_none')));
      expect(byField.policy).to.deep.equal(restProblem(await h.rest('GET', '/v1/policies/7')));
      expect(byField.currentPolicy).to.deep.equal(restProblem(await h.rest('GET', '/v1/policies/current')));

      const ideas = await h.gql('mutation { generateIdeas(input: {mode: rebalance, market: "US"}) { notes } }');
      expect(ideas.errors![0].extensions.code).to.equal('POLICY_REQUIRED');
      expect(problemOf(ideas.errors![0])).to.deep.equal(
        restProblem(await h.rest('POST', '/v1/ideas/generate', { mode: 'rebalance', market: 'US' })),
      );

      const { consent: _consent, ...withoutConsent } = policyBody('2026-11-01');
      const consent = await h.gql('mutation($input: PolicyCreateRequest!) { createPolicy(input: $input) { version } }', {
        input: { ...withoutConsent, consent: null },
      });
      expect(consent.errors![0].extensions.code).to.equal('CONSENT_REQUIRED');
      expect(problemOf(consent.errors![0])).to.deep.equal(restProblem(await h.rest('POST', '/v1/policies', withoutConsent)));
    });
  });
});
