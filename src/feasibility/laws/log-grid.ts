// The law of wealth with monthly contributions by numerical convolution, month by month, on a log grid: the method
// used where the conditional lognormal (conditional-lognormal.ts) loses accuracy (log variance s²T of the horizon above 1).
//
// Model (the service's convention, as in conditional-lognormal.ts): W_0 = C; each whole month W ← W·e^X + c, X ~ N(m/12, s²/12);
// the leftover fraction f of a year grows by e^Y, Y ~ N(m·f, s²·f). With Y_k = W_k / c (c > 0):
//   Y_k = e^{X_k}·Y_{k−1} + 1 ≥ 1,   so  L_k = ln Y_k = softplus(L_{k−1} + X_k) ≥ 0,  softplus(u) = ln(1 + e^u).
// The distribution function F of L is carried on a uniform grid of step h = min(s/√12, 0.24). A month is
// two operations on it:
//   1. U = L + X: F_U(u_i) = Σ_d w_d·F_L(u_{i−d}), w the normal density of X sampled at the nodes (the trapezoid
//      rule on the whole line, exact to ~1e-9 for a standard deviation of at least 0.9 steps; a narrower one — only
//      the leftover fraction can be — integrates hat functions exactly instead);
//   2. L' = softplus(U): F_L'(l) = F_U(ln(e^l − 1)), read by six-point (quintic Lagrange) interpolation at positions
//      fixed by the grid, so their weights are computed once (four-point cubic interpolation at 1.25 points per sd
//      erred 25 times more, 0.00007, and took 1.4 times as long).
// The first month (or two, without capital) is in closed form; the leftover fraction is integrated out when read
// (Gauss–Legendre). Only the window where 1e-10 < F < 1 − 1e-10 is computed.
//
// Accuracy (test/unit/feasibility-laws.test.ts): probabilities within 0.00005 of a grid with 4 points per monthly sd
// (measured 0.000003 over horizons 1–50 y, σ 0.05–0.35, μ −0.05–0.15 where s²T > 1); at σ 0.6–2, where the step is
// capped, within 0.0002 of one with 4 points per sd and steps of 0.03 (measured 0.00015: steps of 0.12 erred 0.00008
// and cost about four times as much); within the sampling error of the 1,000,000-path references (24 of them at
// σ 0.45–2 and horizons to 100 years) and of a 3,000,000-path check of the two cases furthest from their 400,000-path
// references.
import { stepGrid } from '../kernels/grid-step.js';
import { normalCdf } from '../math/normal.js';
import { normalExpectation } from '../math/quadrature.js';
import { GRID_RESOLUTION, gridGeometry, lagrange, MAX_STEP, normalKernel, POINTS, STENCIL, type Kernel } from './log-grid-nodes.js';
import type { LogModel } from './model.js';

export const EPSILON = 1e-10;

const scratch = new Float64Array(POINTS);
/** Interpolation of F (node j at F[offset + j]) at fractional node p, F = 0 below node lo and 1 beyond hi. */
function interpolate(F: Float64Array, offset: number, lo: number, hi: number, p: number): number {
  const i = Math.floor(p);
  lagrange(p - i, scratch, 0);
  if (i - 2 >= lo && i + 3 <= hi) {
    // All six nodes within the window (the usual case), read directly.
    const at = offset + i;
    const value =
      scratch[0]! * F[at - 2]! +
      scratch[1]! * F[at - 1]! +
      scratch[2]! * F[at]! +
      scratch[3]! * F[at + 1]! +
      scratch[4]! * F[at + 2]! +
      scratch[5]! * F[at + 3]!;
    return Math.min(1, Math.max(0, value));
  }
  let value = 0;
  for (let k = 0; k < POINTS; k++) {
    const j = i + STENCIL[k]!;
    value += scratch[k]! * (j < lo ? 0 : j > hi ? 1 : F[offset + j]!);
  }
  return Math.min(1, Math.max(0, value));
}

/** ln(e^l − 1) for l > 0, without overflow for large l. */
function inverseSoftplus(l: number): number {
  return l > 30 ? l + Math.log1p(-Math.exp(-l)) : Math.log(Math.expm1(l));
}

/**
 * The distribution of W/c month by month from a start ratio ρ = C / c, on a grid sized for up to `capacity` months;
 * `advanceTo` steps forward, `exceeds` reads the current month with any leftover fraction of a year.
 */
export class GridWealth {
  private readonly origin: number;
  private readonly step: number;
  private readonly size: number;
  /**
   * The distribution function F of L on the grid, node j at index pad + j of `current`, within its window [lo, hi]
   * (0 below it, 1 above); the room on both sides is the step's (kernels/grid-step.ts), where it writes out those 0s and 1s
   * so that its loops read them without bounds checks.
   */
  private current: Float64Array;
  private readonly pad: number;
  private lo: number;
  private hi: number;
  /** Whole months done. */
  months: number;
  /** The start ratio ρ = C / c. */
  private readonly ratio: number;
  private readonly zero: number;
  private readonly source: Float64Array;
  private readonly cell: Int32Array;
  /** The interpolation weights of the softplus map, nodes in pairs with their weights interleaved (kernels/grid-step.ts). */
  private readonly lagrangeWeights: Float64Array;
  private readonly kernel: Kernel;

  /** The law after `months` whole months. */
  static after(months: number, model: LogModel, ratio: number, resolution = GRID_RESOLUTION, maxStep = MAX_STEP): GridWealth {
    const law = new GridWealth(model, ratio, months, resolution, maxStep);
    law.advanceTo(months);
    return law;
  }

  constructor(
    private readonly model: LogModel,
    ratio: number,
    capacity: number,
    resolution = GRID_RESOLUTION,
    maxStep = MAX_STEP,
  ) {
    const a = model.m / 12;
    const b = Math.sqrt(model.s2 / 12);
    // Fine enough for the month's return (`resolution` points per sd) and for the bend of the softplus near 0.
    this.ratio = ratio;
    // The grid spans U = L + X ≥ −(a few monthly sd) up to a bound on L's upper tail after `capacity` months (plus
    // a year, for the leftover fraction read later).
    const top =
      Math.log(ratio + capacity + 1) + Math.max(0, a) * (capacity + 12) + 10 * Math.sqrt((model.s2 * (capacity + 12)) / 12) + 12 * b;
    const { bottom, step: h, size } = gridGeometry(b, top, resolution, maxStep);
    this.step = h;
    this.origin = bottom;
    this.size = size;
    this.lo = size;
    this.hi = -1;
    this.months = 0;
    // The softplus map reads F_U at fixed positions: their cell and six-point (quintic Lagrange) weights, once.
    this.zero = Math.ceil(-bottom / h); // first node with l > 0
    this.source = new Float64Array(size);
    this.cell = new Int32Array(size);
    this.lagrangeWeights = new Float64Array(2 * POINTS * Math.ceil(size / 2));
    for (let j = this.zero; j < size; j++) {
      const p = (inverseSoftplus(bottom + j * h) - bottom) / h;
      this.source[j] = p;
      const i = Math.floor(p);
      this.cell[j] = i;
      lagrange(p - i, this.lagrangeWeights, 2 * POINTS * (j >> 1) + (j & 1), 2);
    }
    this.kernel = normalKernel(a / h, b / h);
    // Either side: the kernel's reach and the last block of eight outputs.
    this.pad = this.kernel.weights.length + 8;
    this.current = new Float64Array(size + 2 * this.pad);
  }

  advanceTo(months: number): void {
    if (months < this.months) throw new RangeError('the grid only steps forward');
    const { model, size, step: h, origin: bottom } = this;
    const a = model.m / 12;
    const b = Math.sqrt(model.s2 / 12);
    // Closed form after the first month (with capital) or the second (without): L = softplus(μ0 + bX'), X' ~ N(0,1).
    const closed = this.ratio > 0 ? 1 : 2;
    if (this.months < closed && months >= closed) {
      const mu0 = this.ratio > 0 ? Math.log(this.ratio) + a : a;
      const F = this.current;
      const pad = this.pad;
      this.lo = size;
      this.hi = -1;
      for (let j = 0; j < size; j++) {
        const l = bottom + j * h;
        const value = l <= 0 ? 0 : normalCdf((inverseSoftplus(l) - mu0) / b);
        F[pad + j] = value;
        if (value > EPSILON && this.lo === size) this.lo = j;
        if (value < 1 - EPSILON) this.hi = j;
      }
      this.months = closed;
    }
    if (months < closed) {
      this.months = months;
      return;
    }
    const { lo, hi } = stepGrid(
      {
        current: this.current,
        weights: this.kernel.weights,
        from: this.kernel.from,
        source: this.source,
        cell: this.cell,
        lagrange: this.lagrangeWeights,
        size,
        zero: this.zero,
        pad: this.pad,
      },
      this.lo,
      this.hi,
      months - this.months,
      EPSILON,
    );
    Object.assign(this, { lo, hi, months });
  }

  /** The memory its arrays hold (those a snapshot shares with its grid counted for each). */
  get bytes(): number {
    return this.current.byteLength + this.source.byteLength + this.cell.byteLength + this.lagrangeWeights.byteLength;
  }

  /** The law at the current month, frozen (later steps of this one do not change it). */
  snapshot(): GridWealth {
    const copy = Object.create(GridWealth.prototype) as GridWealth;
    Object.assign(copy, this, { current: this.current.slice() });
    return copy;
  }

  /** ln(W/c) where it is one value: ln ρ before the first month (−∞ without capital), 0 after one without capital. */
  private pointMass(): number | undefined {
    if (this.months < 1) return Math.log(this.ratio);
    if (this.months === 1 && this.ratio <= 0) return 0;
    return undefined;
  }

  /**
   * P(L < x) after the whole months, L = ln(W/c), so that 1 − below(x) = P(W/c ≥ e^x) also where L is a point mass
   * (reaching the target exactly counts as reaching it).
   */
  private below(x: number): number {
    const point = this.pointMass();
    if (point !== undefined) return x > point ? 1 : 0;
    return interpolate(this.current, this.pad, this.lo, this.hi, (x - this.origin) / this.step);
  }

  /**
   * P(W/c ≥ level) after the whole months and a leftover `fraction` of a year, whose log-return
   * Y ~ N(m·f, s²·f) is integrated out (composite Gauss–Legendre over ±7 standard deviations).
   */
  exceeds(level: number, fraction = 0): number {
    if (level <= 0) return 1;
    const x = Math.log(level);
    if (!(fraction > 0)) return 1 - this.below(x);
    const mean = this.model.m * fraction;
    const sd = Math.sqrt(this.model.s2 * fraction);
    // A point mass moves by Y alone: the normal law of Y itself (0 for W = 0).
    const point = this.pointMass();
    if (point !== undefined) return point === -Infinity ? 0 : normalCdf((point + mean - x) / sd);
    return Math.min(1, Math.max(0, 1 - normalExpectation((z) => this.below(x - mean - sd * z))));
  }
}
