import { expect } from 'chai';
import { graphql } from '../graphql/support.js';
import { rpc } from '../support/mcp.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SIGNATURE = 'must be a name: it holds no letter';

/** A policy's rules are the service's, the same over REST, GraphQL and MCP (and the dashboard: dashboard-problems.test.ts). */
describe('policy rules on every channel: a signature that is a name, weights that sum to 1 within 1e-9', () => {
  let server: TestServer;
  let token: string;
  let disclosureVersion: string;

  before(async () => {
    server = await startTestServer();
    token = await server.token(['read', 'trade', 'mcp']);
    disclosureVersion = (await server.api.get('/v1/disclosures/current', { token })).body.version;
  });
  after(() => server.close());

  const policy = (signer_name = 'Ada Lovelace', target_allocation = [{ symbol: 'VTI', weight: 1 }]) => ({
    limits: {
      max_order_notional: 10000,
      max_position_weight: 0.7,
      max_daily_notional: 25000,
      max_daily_loss: 2000,
      allowed_markets: ['US'],
    },
    target_allocation,
    consent: { disclosure_version: disclosureVersion, accepted: true, signer_name },
  });
  const create = (json: unknown) => server.api.post('/v1/policies', { token, json });

  it('refuses a signature without a letter with 400 naming consent/signer_name, over REST, GraphQL and MCP, storing nothing', async () => {
    for (const signer_name of [' ', '1234', '— .']) {
      const response = await create(policy(signer_name));
      expect(response.status, signer_name).to.equal(400);
      expect(response.body.errors).to.deep.equal([{ pointer: '/consent/signer_name', detail: SIGNATURE }]);
    }
    const overGraphQL = await graphql(server, 'mutation($p: PolicyCreateRequest!) { createPolicy(input: $p) { version } }', {
      token,
      variables: { p: policy('  ') },
    });
    expect(overGraphQL.body.errors![0].extensions).to.deep.include({
      code: 'VALIDATION_ERROR',
      errors: [{ pointer: '/input/consent/signer_name', detail: SIGNATURE }],
    });
    const overMcp = await rpc(server, token, 'tools/call', { name: 'createPolicy', arguments: policy('  ') });
    expect(overMcp.body.result.isError).to.equal(true);
    expect(JSON.parse(overMcp.body.result.content[0].text).errors).to.deep.equal([{ pointer: '/consent/signer_name', detail: SIGNATURE }]);
    expect((await server.api.get('/v1/policies/current', { token })).status, 'nothing stored').to.equal(404);
  });

  it('accepts a name of one word, as every channel always has (people with a single name sign with it)', async () => {
    const response = await create(policy('Pelé'));
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    expect(response.body.consent.signer_name).to.equal('Pelé');
  });

  it('accepts weights that sum to 1 within 1e-9 and refuses a sum just outside it', async () => {
    const third = { symbol: 'VTI', weight: 0.333333333333 };
    expect((await create(policy(undefined, [third, { ...third, symbol: 'BND' }, { ...third, symbol: 'GLD' }]))).status).to.equal(201);
    const outside = await create(
      policy(undefined, [
        { symbol: 'VTI', weight: 0.5 },
        { symbol: 'BND', weight: 0.499999998 },
      ]),
    );
    expect(outside.status).to.equal(422);
    expect(outside.body.detail).to.equal('Target weights sum to 0.999999998 (99.9999998 %); they must sum to 1 (100 %), within 1e-9.');
  });
});
