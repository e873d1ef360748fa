// A problem document stays short whatever the request (issue 34): at most LISTED_FIELDS invalid fields are listed,
// `errors_omitted` counts the rest, and a field's name or detail is cut at FIELD_TEXT_CHARS — over REST and MCP.
import { expect } from 'chai';
import { FIELD_TEXT_CHARS, LISTED_FIELDS } from '../../src/services/errors.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('bounded problem documents', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = await server.token(['read', 'mcp']);
  });
  after(() => server.close());

  const goal = { capital: 10000, target: 20000, horizon_years: 10, market: 'US' };
  /** `count` members no operation knows, named 0, 1, … in base 36 (12 000 of them fit in the 100 KB a body may have). */
  const unknown = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [i.toString(36), 1]));

  it('lists 50 of 12 000 unknown members, counts the rest, and stays under 64 KB', async () => {
    const response = await server.api.post('/v1/goals/feasibility', { token, json: { ...goal, ...unknown(12_000) } });
    expect(response.status).to.equal(400);
    expect(response.text.length).to.be.below(64 * 1024);
    expect(response.body.errors).to.have.length(LISTED_FIELDS);
    expect(response.body.errors[0]).to.deep.equal({ pointer: '/0', detail: 'is not a known field' });
    expect(response.body.errors_omitted).to.equal(12_000 - LISTED_FIELDS);
    expect(response.body.detail).to.equal('The request has 12000 invalid fields; the first 50 are listed in errors.');
    const few = await server.api.post('/v1/goals/feasibility', { token, json: { ...goal, ...unknown(LISTED_FIELDS) } });
    expect([few.body.errors.length, few.body.errors_omitted]).to.deep.equal([LISTED_FIELDS, undefined]);
  });

  it('cuts a field name longer than 256 characters', async () => {
    const name = 'x'.repeat(5000);
    const response = await server.api.post('/v1/goals/feasibility', { token, json: { ...goal, [name]: 1 } });
    const [error] = response.body.errors;
    expect(error.pointer)
      .to.have.length(FIELD_TEXT_CHARS)
      .and.match(/^\/x+…$/);
    expect(response.body.detail.length).to.be.below(FIELD_TEXT_CHARS + 60);
  });

  it('bounds an MCP tool’s problem the same way', async () => {
    const client = await connectMcp(server, token);
    try {
      const answer = await callTool(client, 'evaluateGoalFeasibility', { ...goal, ...unknown(5_000) });
      expect(answer.ok).to.equal(false);
      if (answer.ok) return;
      expect([answer.problem.errors.length, answer.problem.errors_omitted]).to.deep.equal([LISTED_FIELDS, 5_000 - LISTED_FIELDS]);
    } finally {
      await client.close();
    }
  });
});
