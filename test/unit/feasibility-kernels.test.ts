import { expect } from 'chai';
import { layoutReach, stepReach } from '../../src/feasibility/kernels/grid-reach.js';
import { stepGrid, type SteppedGrid } from '../../src/feasibility/kernels/grid-step.js';
import { gridGeometry, lagrange, normalKernel } from '../../src/feasibility/laws/log-grid-nodes.js';
import { normalCdf } from '../../src/feasibility/math/normal.js';
import * as gridReachReference from '../support/feasibility-kernels/grid-reach.js';
import * as gridStepReference from '../support/feasibility-kernels/grid-step.js';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Where two arrays first differ in a bit (a zero's sign aside: the kernels clamp with min/max, the references with comparisons), or −1. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>, length = Math.max(a.length, b.length)): number {
  for (let i = 0; i < length; i++) {
    const x = a[i];
    const y = b[i];
    if (!(Object.is(x, y) || (x === 0 && y === 0))) return i;
  }
  return -1;
}

const inverseSoftplus = (l: number) => (l > 30 ? l + Math.log1p(-Math.exp(-l)) : Math.log(Math.expm1(l)));
const softplus = (u: number) => (u > 30 ? u + Math.log1p(Math.exp(-u)) : Math.log1p(Math.exp(u)));

/** A month's log-return law and a grid for it, as the laws draw them: σ 0.05–2, μ −0.5–1, up to `maxNodes` nodes. */
function randomGrid(random: () => number, maxNodes: number) {
  for (;;) {
    const sigma = 0.05 + 1.95 * random();
    const mu = -0.5 + 1.5 * random();
    const s2 = Math.log1p((sigma / (1 + mu)) ** 2);
    const a = (Math.log1p(mu) - s2 / 2) / 12;
    const b = Math.sqrt(s2 / 12);
    const geometry = gridGeometry(b, 2 + 60 * random(), [1, 2, 4][Math.floor(3 * random())]);
    // A narrow kernel too (under 0.9 steps of sd: hat functions), as the leftover fraction of a year has.
    const kernel =
      random() < 0.2 ? normalKernel((a / geometry.step) * random(), 0.9 * random()) : normalKernel(a / geometry.step, b / geometry.step);
    if (geometry.size <= maxNodes) return { a, b, s2, ...geometry, kernel };
  }
}

describe('the feasibility kernels: WebAssembly against their TypeScript references (test/support/feasibility-kernels/)', () => {
  it('steps the forward log grid identically to the bit, over 40 seeded random grids stepped in turns in the one memory', () => {
    const random = mulberry32(20261201);
    const cases = Array.from({ length: 40 }, () => {
      const { a, b, step: h, bottom, size, kernel } = randomGrid(random, 20_000);
      const pad = kernel.weights.length + 8;
      const zero = Math.ceil(-bottom / h);
      const source = new Float64Array(size);
      const cell = new Int32Array(size);
      const weights = new Float64Array(12 * Math.ceil(size / 2));
      // Some grids with arbitrary interpolation weights, so that the clamps to [0, 1] act on every kind of node.
      const wild = random() < 0.3;
      for (let j = zero; j < size; j++) {
        const p = (inverseSoftplus(bottom + j * h) - bottom) / h;
        source[j] = p;
        cell[j] = Math.floor(p);
        lagrange(p - cell[j]!, weights, 12 * (j >> 1) + (j & 1), 2);
        if (wild) for (let k = 0; k < 6; k++) weights[12 * (j >> 1) + 2 * k + (j & 1)] = 2 * random() - 0.5;
      }
      // The first month in closed form, as the law starts: F of softplus(μ0 + bZ), μ0 = ln(C/c) + a.
      const mu0 = 10 * random() - 4 + a;
      const F = new Float64Array(size + 2 * pad);
      let lo = size;
      let hi = -1;
      for (let j = 0; j < size; j++) {
        const l = bottom + j * h;
        const value = l <= 0 ? 0 : normalCdf((inverseSoftplus(l) - mu0) / b);
        F[pad + j] = value;
        if (value > 1e-10 && lo === size) lo = j;
        if (value < 1 - 1e-10) hi = j;
      }
      const grid = (current: Float64Array): SteppedGrid => ({
        current,
        weights: kernel.weights,
        from: kernel.from,
        source,
        cell,
        lagrange: weights,
        size,
        zero,
        pad,
      });
      const months = [1, 2, 3].map(() => 1 + Math.floor(12 * random()));
      return { kernel: grid(F.slice()), reference: grid(F.slice()), start: F, window: { lo, hi }, referenceWindow: { lo, hi }, months };
    });
    for (let turn = 0; turn < 3; turn++) {
      for (const c of cases) {
        c.window = stepGrid(c.kernel, c.window.lo, c.window.hi, c.months[turn]!, 1e-10);
        c.referenceWindow = gridStepReference.stepGrid(c.reference, c.referenceWindow.lo, c.referenceWindow.hi, c.months[turn]!, 1e-10);
        expect(c.window).to.deep.equal(c.referenceWindow);
        // F within its window (outside it the law is 0 or 1 whatever the array holds; the kernel copies out the window).
        const { pad } = c.kernel;
        const within = (F: Float64Array) => F.subarray(pad + c.window.lo, pad + c.window.hi + 1);
        expect(firstDifference(within(c.kernel.current), within(c.reference.current))).to.equal(-1);
      }
    }
    // The steps moved every grid, so the comparison compared something.
    expect(cases.filter((c) => firstDifference(c.kernel.current, c.start) >= 0)).to.have.length(cases.length);
  });

  it('steps the backward log grid identically to the bit, over 40 seeded random grids', () => {
    const random = mulberry32(20261202);
    let moved = 0;
    for (let n = 0; n < 40; n++) {
      const { a, s2, step: h, bottom, size, kernel } = randomGrid(random, 20_000);
      const m = 12 * a;
      const taps = kernel.weights.length;
      const uCount = size + taps - 1;
      const wild = random() < 0.3;
      const fill = (arrays: ReturnType<typeof layoutReach>) => {
        arrays.weights.set(kernel.weights);
        for (let i = 0; i < uCount; i++) {
          const p = (softplus(bottom + (kernel.from + i) * h) - bottom) / h;
          arrays.cell[i] = Math.floor(p);
          lagrange(p - arrays.cell[i]!, arrays.lagrange, 6 * i);
        }
      };
      const level = Math.exp(12 * random() - 2);
      const fraction = random() < 0.5 ? 0 : random() / 12;
      const spread = Math.sqrt(s2 * fraction + (h / 2) ** 2);
      const start = Array.from({ length: size }, (_, j) => normalCdf((bottom + j * h + m * fraction - Math.log(level)) / spread));
      const wildWeights = Array.from({ length: 6 * uCount }, () => 2 * random() - 0.5);
      let hi = size - 1;
      while (hi > 0 && start[hi]! >= 1 - 1e-7) hi--;
      const low = start[0]!;
      let lo = 0;
      while (lo < hi && start[lo + 1]! - low < 1e-7) lo++;
      const months = 1 + Math.floor(40 * random());
      const run = (layout: typeof layoutReach, step: typeof stepReach) => {
        const arrays = layout(size, taps, uCount);
        fill(arrays);
        if (wild) arrays.lagrange.set(wildWeights);
        arrays.V.set(start, 2);
        const window = step(arrays, uCount, size, 1e-7, low, lo, hi, months);
        return { window, V: arrays.V.slice(0, size + 2) };
      };
      const kernelRun = run(layoutReach, stepReach);
      const referenceRun = run(gridReachReference.layoutReach, gridReachReference.stepReach);
      expect(kernelRun.window, `grid ${n}`).to.deep.equal(referenceRun.window);
      expect(firstDifference(kernelRun.V, referenceRun.V), `grid ${n}`).to.equal(-1);
      if (firstDifference(kernelRun.V.subarray(2), start) >= 0) moved++;
    }
    // Nearly every grid's months changed V (a target far out of reach leaves it), so the comparison compared something.
    expect(moved).to.be.at.least(35);
  });
});
