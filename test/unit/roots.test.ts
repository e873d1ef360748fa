import { expect } from 'chai';
import { boundary } from '../../src/services/roots.js';

describe('boundary (the searches’ root finder)', () => {
  const counted = (f: (x: number) => number) => {
    const calls = { n: 0 };
    return { calls, f: (x: number) => (calls.n++, f(x)) };
  };

  it('closes a bracket on a saturating function from the good side: within the resolution in 12 evaluations', () => {
    // P(c) = 1 − e^{−c/500} reaches 0.8 at 500·ln 5 = 804.71896…; the secant converges on the good end alone, and
    // bisecting the far end took 15 evaluations.
    const { calls, f } = counted((x) => 1 - Math.exp(-x / 500));
    const root = 500 * Math.log(5);
    const good = boundary(f, 0.8, 500, 1000, 1e-4);
    expect(good).to.be.at.least(root).and.at.most(root + 1e-4);
    expect(calls.n).to.be.at.most(12);
  });

  it('finds the boundary of a decreasing function, returning the good end', () => {
    const { f } = counted((x) => Math.exp(-x));
    const good = boundary(f, 0.25, 10, 0, 1e-9, false);
    expect(good).to.be.at.most(Math.log(4)).and.at.least(Math.log(4) - 1e-9);
  });
});
