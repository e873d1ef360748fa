// Success bodies written by code compiled from their response schemas (src/contract/serializers.ts): the same JSON as
// JSON.stringify for an answer that is what its schema says, only the declared members, and JSON.stringify's text
// (undefined here) for one that is not.
import { expect } from 'chai';
import { Contract } from '../../src/contract/operations.js';
import { serializerOf } from '../../src/contract/serializers.js';
import { BROKERS } from '../../src/services/brokers.js';
import { loadDocument } from '../../src/document.js';

describe('compiled success serializers', () => {
  const contract = new Contract(loadDocument());
  const page = { data: BROKERS, next_cursor: null };

  it('write what JSON.stringify writes of a conforming answer, member for member', () => {
    const text = serializerOf(contract, 'listBrokers')!(page);
    expect(text).to.be.a('string');
    expect(JSON.parse(text!)).to.deep.equal(JSON.parse(JSON.stringify(page)));
  });

  it('write only the members the schema declares', () => {
    const withInternal = { ...page, data: BROKERS.map((broker) => ({ ...broker, internal_note: 'not in the contract' })) };
    expect(JSON.parse(serializerOf(contract, 'listBrokers')!(withInternal)!)).to.deep.equal(JSON.parse(JSON.stringify(page)));
  });

  it('leave an answer missing a required member to JSON.stringify (undefined), rather than fail the request', () => {
    const { name: _name, ...nameless } = BROKERS[0]!;
    expect(serializerOf(contract, 'listBrokers')!({ data: [nameless], next_cursor: null })).to.equal(undefined);
  });

  it('are made once per operation and contract, and not for an operation without a JSON success body', () => {
    expect(serializerOf(contract, 'listBrokers')).to.equal(serializerOf(contract, 'listBrokers'));
    const without = [...contract.operations.values()].find((operation) => !operation.success);
    if (without) expect(serializerOf(contract, without.operationId)).to.equal(undefined);
    expect(serializerOf(contract, 'noSuchOperation')).to.equal(undefined);
  });
});
