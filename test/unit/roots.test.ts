import { expect } from 'chai';
import { normalCdf, normalQuantile } from '../../src/feasibility/math/normal.js';
import { boundary } from '../../src/feasibility/math/roots.js';

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
    expect(good)
      .to.be.at.least(root)
      .and.at.most(root + 1e-4);
    expect(calls.n).to.be.at.most(12);
  });

  it('finds the boundary of a decreasing function, returning the good end', () => {
    const { f } = counted((x) => Math.exp(-x));
    const good = boundary(f, 0.25, 10, 0, 1e-9, false);
    expect(good)
      .to.be.at.most(Math.log(4))
      .and.at.least(Math.log(4) - 1e-9);
  });

  it('steps on the probit scale when given it: a lognormal probability’s boundary in 10 evaluations or fewer, 11–17 without', () => {
    // P(x) = Φ((ln x − ln 120)/sd) reaches 0.8 at 120·e^{sd·z_0.8}; its S shape slows a plain secant.
    for (const sd of [0.3, 0.1, 0.03]) {
      const { calls, f } = counted((x) => normalCdf((Math.log(x) - Math.log(120)) / sd));
      const root = 120 * Math.exp(sd * normalQuantile(0.8));
      const good = boundary(f, 0.8, 100, 200, 1e-4, true, normalQuantile);
      expect(good).to.be.closeTo(root, 1e-4);
      expect(f(good)).to.be.at.least(0.8);
      expect(calls.n - 1).to.be.at.most(10);
    }
  });
});
