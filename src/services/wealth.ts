// The law of wealth with monthly contributions, by conditioning on the total log-return (the technique of Curran
// and of Rogers & Shi for sums of lognormals, as in Asian options and savings plans).
//
// Months k = 1..n each grow wealth by G_k (ln G_k ~ N(a, b²), a = m/12, b² = s²/12) and then add the contribution c;
// a leftover fraction f of a year only grows (ln ~ N(m·f, s²·f)). Wealth at the horizon is
//   W = C·e^L + c·B,   L = total log-return,   B = Σ_k e^{T_k},   T_k = log-return after contribution k.
// Given L = M + √V·z, every T_k is Gaussian with known mean and covariance (a bridge), so the capital part is
// exact and B is a sum of lognormals with small dispersion: it is approximated by the lognormal with its exact
// conditional first two moments, and P(W ≥ K) = ∫ φ(z) P(c·B ≥ K − C·e^L | z) dz is integrated numerically.
// Both conditional moments are sums of O(n) exponentials: the double sum in E[B²|z] groups by j + k (see below).
// Against 1,000,000-path simulations (test/fixtures/feasibility-reference.json) the probability is within 0.001.
import { normalCdf } from './normal.js';

export interface LogModel {
  m: number;
  s2: number;
}

/** Gauss–Legendre nodes and weights on [−1, 1] (Golub–Welsch would be overkill: Newton on P_n, computed once). */
function gaussLegendre(n: number): { x: Float64Array; w: Float64Array } {
  const x = new Float64Array(n);
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let t = Math.cos((Math.PI * (i + 0.75)) / (n + 0.5));
    for (let iteration = 0; iteration < 100; iteration++) {
      let p0 = 1;
      let p1 = t;
      for (let k = 2; k <= n; k++) [p0, p1] = [p1, ((2 * k - 1) * t * p1 - (k - 1) * p0) / k];
      const dp = (n * (t * p1 - p0)) / (t * t - 1);
      const dt = p1 / dp;
      t -= dt;
      if (Math.abs(dt) < 1e-15) {
        w[i] = 2 / ((1 - t * t) * dp * dp);
        break;
      }
    }
    x[i] = t;
  }
  return { x, w };
}

const QUADRATURE = gaussLegendre(48);
const Z_MIN = -9;
const Z_MAX = 9;
/** Where the conditional law is computed (and interpolated between): enough for the interpolation error to vanish. */
const GRID = 37;
const GRID_STEP = (Z_MAX - Z_MIN) / (GRID - 1);

const logSumExp = (values: Float64Array, count: number): number => {
  let max = -Infinity;
  for (let i = 0; i < count; i++) if (values[i]! > max) max = values[i]!;
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (let i = 0; i < count; i++) sum += Math.exp(values[i]! - max);
  return max + Math.log(sum);
};

/**
 * The conditional law of B (wealth from a contribution of 1 a month) given z, for a horizon of `months` whole months
 * plus a leftover `fraction` of a year: on a grid of z, ln B | z ≈ N(mu(z), sigma2(z)).
 */
export class ContributionLaw {
  readonly M: number;
  readonly sqrtV: number;
  private readonly mu = new Float64Array(GRID);
  private readonly sigma2 = new Float64Array(GRID);

  constructor(months: number, fraction: number, model: LogModel) {
    const a = model.m / 12;
    const b2 = model.s2 / 12;
    const n = months;
    const V = n * b2 + model.s2 * fraction;
    this.M = n * a + model.m * fraction;
    this.sqrtV = Math.sqrt(V);
    // T_k (k = 1..n): mean e_k, variance u_k; index i = k − 1.
    const e = new Float64Array(n);
    const u = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      e[i] = (n - i - 1) * a + model.m * fraction;
      u[i] = (n - i - 1) * b2 + model.s2 * fraction;
    }
    // E[B²|z] = Σ_{j,k} exp(e_j + e_k + (u_j + u_k)/2 − (u_j + u_k)²/(2V) + (u_j + u_k)·z/√V + u_max(j,k)): everything but
    // the last term depends on s = j + k only, so it is Σ_s exp(F_s(z))·W_s with W_s = Σ_{j+k=s} exp(u_max(j,k)), the
    // sum over ordered pairs (the diagonal once), from prefix sums of exp(u) (scaled by exp(−u_1) against overflow).
    const prefix = new Float64Array(n + 1);
    const top = n > 0 ? u[0]! : 0;
    for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + Math.exp(u[i]! - top);
    const pairs = 2 * n - 1;
    const logW = new Float64Array(Math.max(pairs, 0));
    const eSum = new Float64Array(Math.max(pairs, 0));
    const uSum = new Float64Array(Math.max(pairs, 0));
    for (let s = 0; s < pairs; s++) {
      // indices i + j = s with 0 ≤ i, j < n; the larger index runs from ceil(s/2) to min(n − 1, s).
      const lo = Math.ceil(s / 2);
      const hi = Math.min(n - 1, s);
      let sum = 2 * (prefix[hi + 1]! - prefix[lo]!);
      if (s % 2 === 0) sum -= Math.exp(u[s / 2]! - top);
      logW[s] = Math.log(Math.max(sum, Number.MIN_VALUE)) + top;
      // e and u are linear in the index: their pair sums depend on s only.
      eSum[s] = e[lo]! + e[s - lo]!;
      uSum[s] = u[lo]! + u[s - lo]!;
    }
    const first = new Float64Array(n);
    const second = new Float64Array(Math.max(pairs, 0));
    for (let g = 0; g < GRID; g++) {
      const zv = (Z_MIN + g * GRID_STEP) / this.sqrtV;
      for (let i = 0; i < n; i++) first[i] = e[i]! + u[i]! * zv + (u[i]! - (u[i]! * u[i]!) / V) / 2;
      for (let s = 0; s < pairs; s++) second[s] = eSum[s]! + uSum[s]! / 2 - (uSum[s]! * uSum[s]!) / (2 * V) + uSum[s]! * zv + logW[s]!;
      const logMean = logSumExp(first, n);
      const logSecond = logSumExp(second, pairs);
      const sigma2 = Math.max(logSecond - 2 * logMean, 0);
      this.sigma2[g] = sigma2;
      this.mu[g] = logMean - sigma2 / 2;
    }
  }

  /** Cubic (Catmull–Rom) interpolation on the grid. */
  private at(values: Float64Array, z: number): number {
    const t = Math.min(Math.max((z - Z_MIN) / GRID_STEP, 0), GRID - 1.000001);
    const i = Math.floor(t);
    const f = t - i;
    const p0 = values[Math.max(i - 1, 0)]!;
    const p1 = values[i]!;
    const p2 = values[Math.min(i + 1, GRID - 1)]!;
    const p3 = values[Math.min(i + 2, GRID - 1)]!;
    return p1 + 0.5 * f * (p2 - p0 + f * (2 * p0 - 5 * p1 + 4 * p2 - p3 + f * (3 * (p1 - p2) + p3 - p0)));
  }

  /** P(C·e^L + c·B ≥ K | z), and the margin whose sign says which side of the target the median lies on. */
  private conditional(z: number, capital: number, logMonthly: number, target: number): { p: number; margin: number } {
    const rest = capital > 0 ? target - capital * Math.exp(this.M + this.sqrtV * z) : target;
    if (rest <= 0) return { p: 1, margin: Infinity };
    const sigma2 = this.at(this.sigma2, z);
    const margin = this.at(this.mu, z) + logMonthly - Math.log(rest);
    return { p: sigma2 > 1e-300 ? normalCdf(margin / Math.sqrt(sigma2)) : margin >= 0 ? 1 : 0, margin };
  }

  /** P(C·e^L + c·B ≥ K). */
  probability(capital: number, monthly: number, target: number): number {
    if (target <= 0) return 1;
    // Beyond z*, capital alone reaches the target: those outcomes count in full.
    const zStar = capital > 0 ? (Math.log(target) - Math.log(capital) - this.M) / this.sqrtV : Infinity;
    const upper = Math.min(zStar, Z_MAX);
    let p = zStar < Infinity ? 1 - normalCdf(Math.max(zStar, Z_MIN)) : 0;
    if (upper <= Z_MIN || monthly <= 0) return Math.min(1, Math.max(0, p));
    const logMonthly = Math.log(monthly);
    // The conditional probability is a step (B | z has a small dispersion) where its margin crosses 0; the margin
    // rises with z. The step is located by bisection and integrated on a panel of its own, a few widths wide.
    let lo = Z_MIN;
    let hi = upper;
    for (let i = 0; i < 60 && hi - lo > 1e-9; i++) {
      const mid = (lo + hi) / 2;
      if (this.conditional(mid, capital, logMonthly, target).margin >= 0) hi = mid;
      else lo = mid;
    }
    const z0 = hi;
    const h = 1e-4;
    const slope = (this.conditional(Math.min(z0 + h, upper), capital, logMonthly, target).margin - this.conditional(Math.max(z0 - h, Z_MIN), capital, logMonthly, target).margin) / (2 * h);
    const width = Number.isFinite(slope) && slope > 0 ? Math.sqrt(this.at(this.sigma2, z0)) / slope : GRID_STEP;
    const edges = [Z_MIN, Math.max(Z_MIN, z0 - 10 * width), Math.min(upper, z0 + 10 * width), upper];
    for (let panel = 0; panel < 3; panel++) {
      const [a, b] = [edges[panel]!, edges[panel + 1]!];
      if (b <= a) continue;
      const half = (b - a) / 2;
      const middle = (a + b) / 2;
      for (let i = 0; i < QUADRATURE.x.length; i++) {
        const z = middle + half * QUADRATURE.x[i]!;
        p += ((half * QUADRATURE.w[i]! * Math.exp((-z * z) / 2)) / Math.sqrt(2 * Math.PI)) * this.conditional(z, capital, logMonthly, target).p;
      }
    }
    return Math.min(1, Math.max(0, p));
  }
}
