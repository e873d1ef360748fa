import { expect } from 'chai';
import { Contract } from '../../src/contract/operations.js';
import { loadDocument } from '../../src/document.js';
import { InvalidInputError } from '../../src/services/errors.js';

describe('the contract as GraphQL and MCP see it', () => {
  const contract = new Contract(loadDocument());

  function refusal(run: () => void): InvalidInputError {
    try {
      run();
    } catch (error) {
      if (error instanceof InvalidInputError) return error;
      throw error;
    }
    throw new Error('the input was accepted');
  }

  it('lists every operation with its parameters, body and success schema', () => {
    const reject = contract.operation('rejectOrder');
    expect(reject).to.include({ method: 'POST', path: '/v1/orders/{id}/reject' });
    expect(reject.parameters.map((p) => [p.name, p.in, p.required])).to.deep.equal([['id', 'path', true]]);
    expect(reject.body?.required).to.equal(false);
    expect(reject.success?.status).to.equal(200);
    expect(contract.operation('listOrders').parameters.map((p) => p.name)).to.deep.equal([
      'status',
      'symbol',
      'idea_id',
      'limit',
      'cursor',
    ]);
    expect(() => contract.operation('noSuchOperation')).to.throw(/no operation/);
  });

  it("accepts input REST accepts, answering it with the parameters' defaults applied", () => {
    expect(() => contract.validate('listOrders', { query: { limit: 5, status: 'filled' } })).to.not.throw();
    expect(() =>
      contract.validate('evaluateGoalFeasibility', { body: { capital: 1000, target: 2000, horizon_years: 5, market: 'US' } }),
    ).to.not.throw();
    expect(contract.check('listOrders', { query: { status: 'filled' } }).query).to.deep.equal({ status: 'filled', limit: 20 });
  });

  it('refuses input REST refuses, naming each field by parameter name or path inside the body', () => {
    const params = refusal(() => contract.validate('listOrders', { query: { limit: 0, status: 'lost' } }));
    expect(params.fields.map((f) => f.field).sort()).to.deep.equal(['limit', 'status']);
    const body = refusal(() =>
      contract.validate('evaluateGoalFeasibility', { body: { capital: -1, target: 2000, market: 'US', colour: 'red' } }),
    );
    expect(body.fields).to.deep.include({ field: 'capital', detail: 'must be >= 0' });
    expect(body.fields).to.deep.include({ field: 'horizon_years', detail: 'is required' });
    expect(body.fields).to.deep.include({ field: 'colour', detail: 'is not a known field' });
    const missing = refusal(() => contract.validate('getOrder', { path: {} }));
    expect(missing.fields).to.deep.equal([{ field: 'id', in: 'path', detail: 'is required' }]);
  });
});
