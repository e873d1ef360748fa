import { expect } from 'chai';
import { fingerprintOf } from '../../src/application/idempotency.js';
import type { ContractOperation } from '../../src/contract/operations.js';

// What makes two keyed calls "the same request" (a replay) or different ones (422 idempotency-key-reused): the
// operation's method and path with the call's ids, and the body as canonical JSON.
describe('idempotency: the request fingerprint', () => {
  const approve = { method: 'post', path: '/v1/orders/{order_id}/approve' } as ContractOperation;
  const create = { method: 'post', path: '/v1/policies' } as ContractOperation;
  const of = (body: unknown, operation = create, path: Record<string, unknown> = {}) => fingerprintOf(operation, path, body);

  it('is the same for the same members in another order, at every depth, and without members that are undefined', () => {
    expect(of({ a: 1, b: { c: 2, d: [3, { e: 4, f: 5 }] } })).to.equal(of({ b: { d: [3, { f: 5, e: 4 }], c: 2 }, a: 1 }));
    expect(of({ a: 1, b: undefined })).to.equal(of({ a: 1 }));
    // As JSON itself: undefined in an array is null.
    expect(of({ a: [undefined] })).to.equal(of({ a: [null] }));
  });

  it('differs when a value, an array element or its order, or the path differs', () => {
    expect(of({ a: [1, 2] })).to.not.equal(of({ a: [12] }));
    expect(of({ a: [1, 2] })).to.not.equal(of({ a: [2, 1] }));
    expect(of({ a: '1' })).to.not.equal(of({ a: 1 }));
    expect(of({ a: null })).to.not.equal(of({}));
    expect(of({}, approve, { order_id: 'ord_a' })).to.not.equal(of({}, approve, { order_id: 'ord_b' }));
    expect(of({}, approve, { order_id: 'ord_a' })).to.not.equal(of({}, create));
  });

  it('takes no body, an empty object and a null body apart only where the contract does: none and {} are one request', () => {
    expect(of(undefined, approve, { order_id: 'ord_a' })).to.equal(of({}, approve, { order_id: 'ord_a' }));
    expect(of(null, approve, { order_id: 'ord_a' })).to.not.equal(of({}, approve, { order_id: 'ord_a' }));
    expect(of([], approve, { order_id: 'ord_a' })).to.not.equal(of({}, approve, { order_id: 'ord_a' }));
    // A body that is not an object has no members, and is not empty for that.
    for (const body of ['', 0, false])
      expect(of(body, approve, { order_id: 'ord_a' }), JSON.stringify(body)).to.not.equal(of(undefined, approve, { order_id: 'ord_a' }));
  });
});
