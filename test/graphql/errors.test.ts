import { expect } from 'chai';
import { GraphQLError } from 'graphql';
import type { GraphQLContext } from '../../src/graphql/context.js';
import { classifyExecutionErrors } from '../../src/graphql/errors.js';

describe('GraphQL execution errors no resolver classified', () => {
  const logged: unknown[][] = [];
  const log = { error: (...args: unknown[]) => logged.push(args), warn: (...args: unknown[]) => logged.push(args) };
  const context = { baseUrl: 'http://api.test', log } as unknown as GraphQLContext;

  it('become logged internal-error problems at the same place, without their message', () => {
    const classified = new GraphQLError('The account has no policy yet.', { path: ['currentPolicy'], extensions: { code: 'NOT_FOUND' } });
    const leaking = new GraphQLError('Float cannot represent non numeric value: "secret internal"', {
      path: ['portfolio', 'cash'],
      originalError: new TypeError('secret internal'),
    });
    const result = classifyExecutionErrors({ data: { portfolio: null, currentPolicy: null }, errors: [classified, leaking] }, context)!;
    expect(result.data).to.deep.equal({ portfolio: null, currentPolicy: null });
    expect(result.errors![0]).to.equal(classified);
    const masked = result.errors![1]!;
    expect(masked.path).to.deep.equal(['portfolio', 'cash']);
    expect(masked.extensions).to.deep.include({ code: 'INTERNAL_ERROR', type: 'http://api.test/problems/internal-error', status: 500 });
    expect(JSON.stringify(masked)).to.not.include('secret');
    expect(logged).to.have.length(1);
  });

  it('leave a result whose errors are all classified (or that has none) as it is', () => {
    expect(classifyExecutionErrors({ data: { killSwitch: { engaged: false } } }, context)).to.equal(undefined);
    const classified = new GraphQLError('nope', { extensions: { code: 'NOT_FOUND' } });
    expect(classifyExecutionErrors({ data: null, errors: [classified] }, context)).to.equal(undefined);
  });
});
