import { expect } from 'chai';
import { Contract } from '../../src/contract/operations.js';
import { loadDocument } from '../../src/document.js';
import { selfContained } from '../../src/mcp/schemas.js';
import { buildTools, validateArguments } from '../../src/mcp/tools.js';
import { InvalidInputError } from '../../src/services/errors.js';

const document = {
  components: {
    schemas: {
      Money: { type: 'number', description: 'An amount.', example: 1, 'x-precision': 2 },
      Line: { type: 'object', properties: { amount: { $ref: '#/components/schemas/Money' }, example: { type: 'string' } } },
      Either: {
        oneOf: [{ $ref: '#/components/schemas/Line' }, { type: 'string' }],
        discriminator: { propertyName: 'kind', mapping: { line: '#/components/schemas/Line' } },
      },
      Loop: { type: 'object', properties: { next: { $ref: '#/components/schemas/Loop' } } },
    },
  },
};

function refusal(work: () => void): InvalidInputError {
  try {
    work();
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error('the arguments were unexpectedly accepted');
}

describe('MCP tool schemas', () => {
  describe('selfContained', () => {
    it('inlines references, keeps sibling keywords over the target, and drops OpenAPI-only keywords', () => {
      expect(selfContained({ $ref: '#/components/schemas/Line', description: 'A line.' }, document)).to.deep.equal({
        type: 'object',
        description: 'A line.',
        properties: { amount: { type: 'number', description: 'An amount.' }, example: { type: 'string' } },
      });
      expect(selfContained({ $ref: '#/components/schemas/Either' }, document)).to.have.keys('oneOf');
    });

    it('refuses a recursive schema and an unresolvable reference rather than loop or guess', () => {
      expect(() => selfContained({ $ref: '#/components/schemas/Loop' }, document)).to.throw(/recursive/);
      expect(() => selfContained({ $ref: '#/components/schemas/Nope' }, document)).to.throw(/does not resolve/);
    });
  });

  describe('flattening', () => {
    it('refuses an operation whose body member has the name of one of its parameters', () => {
      const contract = new Contract(loadDocument());
      const clashing = structuredClone(loadDocument()) as any;
      clashing.components.schemas.RejectOrderRequest.properties.id = { type: 'string' };
      expect(() => buildTools(new Contract(clashing), 'http://localhost/notice')).to.throw(/rejectOrder: body member "id" collides/);
      expect(() => buildTools(contract, 'http://localhost/notice')).to.not.throw();
    });

    it('validates arguments exactly as REST validates the request, naming parameters and body members, and refuses unknown ones', () => {
      const contract = new Contract(loadDocument());
      const tools = new Map(buildTools(contract, 'http://localhost/notice').map((t) => [t.operationId, t]));
      const orders = refusal(() => validateArguments(contract, tools.get('listOrders')!, { limit: 0, bogus: 1 }));
      expect(orders.fields.map((f) => f.field).sort()).to.deep.equal(['bogus', 'limit']);
      const reject = refusal(() => validateArguments(contract, tools.get('rejectOrder')!, { id: 'ord_1', reason: '', extra: true }));
      expect(reject.fields.map((f) => f.field).sort()).to.deep.equal(['extra', 'reason']);
      const feasibility = refusal(() =>
        validateArguments(contract, tools.get('evaluateGoalFeasibility')!, { capital: -1, target: 2, horizon_years: 1, market: 'US' }),
      );
      expect(feasibility.fields.map((f) => f.field)).to.deep.equal(['capital']);
      expect(() => validateArguments(contract, tools.get('rejectOrder')!, { id: 'ord_1' })).to.not.throw();
    });
  });
});
