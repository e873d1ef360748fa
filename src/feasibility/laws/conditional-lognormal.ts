// The law of wealth with monthly contributions, by conditioning on the total log-return (the technique of Curran
// and of Rogers & Shi for sums of lognormals, as in Asian options and savings plans).
//
// Model (the service's convention): the annual log-return is N(m, s²); wealth grows month by month by
// G_i = e^{X_i}, X_i ~ N(m/12, s²/12) independent, and the contribution c is added at the end of each of the
// n = floor(12T) whole months; the leftover fraction f = T − n/12 of a year grows by e^Y, Y ~ N(m·f, s²·f). So
//   W_T = C·e^Λ + c·B,  Λ = X_1 + … + X_n + Y ~ N(mT, s²T),  B = Σ_{u=0}^{n−1} e^{R_u},
// where R_u is the log-return over the last u whole months plus the leftover fraction.
//
// Conditionally on Λ = λ the partial sums form a Gaussian bridge, so C·e^Λ is known exactly and B|λ is a sum of
// lognormals with a small dispersion. B|λ is taken as a lognormal shifted to match its exact first three
// conditional moments (a plain two-moment lognormal, which understates the sum's skew, erred by up to 0.007 at long
// horizons and high volatility without capital; where the dispersion is too small for the third moment to be
// resolved the two agree and the two-moment fit is used), and
//   P(W_T ≥ K) = P(Λ ≥ λ*) + ∫_{λ < λ*} φ(λ) · P(c·B ≥ K − C·e^λ | λ) dλ,   λ* = ln(K/C),
// integrated with composite Gauss–Legendre on the standardised z = (λ − mT)/(s√T) ∈ [−6.5, z*], with panels
// refined geometrically towards z*. The conditional moments do not depend on C, c or K: they are tabulated once
// per horizon on a z grid (step 0.25) with their z-derivatives and read by cubic Hermite interpolation, so
// inverting for capital, contribution or target costs only the outer integral.
//
// With R_u ~ N(μ_u, v_u), μ_u = (m/12)·u + m·f, v_u = (s²/12)·u + s²·f, V = s²T, d = (λ − mT)/V:
//   E[e^{R_u} | λ]       = exp(μ_u + v_u·d + (v_u − v_u²/V)/2)
//   E[e^{ΣR} | λ]        = exp(Σμ + Σv·d + Σv/2 − (Σv)²/(2V) + Σ_{pairs} min(v_i, v_j))   (pairs and triples)
// and Σ_{pairs} min(v) depends on the sorted indices only through 2u_1 + u_2 (triples) or u_1 (pairs), so the
// double and triple sums group by t = Σu into O(n) terms whose weights come from prefix sums (pairs) and an O(n²)
// difference array (triples), computed once per horizon. Accuracy: within 0.0004 of the log grid (log-grid.ts)
// where s²T ≤ 1, where the service uses it; beyond, its error grows (0.002 at s²T = 2.5, 0.019 at 6.4) and the
// service uses the log grid (probability.ts).
import { normalCdf } from '../math/normal.js';
import { gaussLegendre } from '../math/quadrature.js';
import { boundary } from '../math/roots.js';
import { shiftedLognormalExceeds } from '../math/shifted-lognormal.js';
import { PowerSum, tripleWeights, Z_MAX } from './conditional-moments.js';
import type { LogModel } from './model.js';

/** The outer integral stops at |z| = 6.5 (the normal mass beyond is below 1e-10). */
const Z_LIMIT = 6.5;
const TABLE_STEP = 0.25;
/** Relative tolerance under which deterministic (zero-volatility) wealth counts as reaching the target. */
const DETERMINISTIC_TOLERANCE = 1e-12;

const GL = gaussLegendre(5);
/** The outer integral's panel ends, sorted in place (at most 23: the 1.5-wide panels, the step's and the end's). */
const panelEnds = new Float64Array(32);
const PHI_NORM = 1 / Math.sqrt(2 * Math.PI);

/** Wealth at a horizon of `months` whole months plus a `fraction` of a year: P for any capital, contribution, target. */
export class ContributionLaw {
  readonly months: number;
  private readonly fraction: number;
  private readonly mean: number;
  private readonly sd: number;
  /** ln E[B|z], d/dz, ln E[B²|z], d/dz on the z grid (contributions only). */
  private readonly lnM1: Float64Array;
  private readonly dM1: Float64Array;
  private readonly lnM2: Float64Array;
  private readonly dM2: Float64Array;
  /** ln E[B³|z] and d/dz (empty when the third moment would overflow: then the two-moment fit is used). */
  private readonly lnM3: Float64Array;
  private readonly dM3: Float64Array;
  /** Deterministic value of B when s = 0. */
  private readonly annuity: number;

  /** `thirdMoment: false` gives the two-moment conditional fit (less accurate at high volatility; for comparison). */
  constructor(
    months: number,
    fraction: number,
    private readonly model: LogModel,
    thirdMoment = true,
  ) {
    const years = months / 12 + fraction;
    this.months = months;
    this.fraction = fraction;
    this.mean = model.m * years;
    this.sd = Math.sqrt(model.s2 * years);
    const size = Math.round((2 * Z_MAX) / TABLE_STEP) + 1;
    this.lnM1 = new Float64Array(size);
    this.dM1 = new Float64Array(size);
    this.lnM2 = new Float64Array(size);
    this.dM2 = new Float64Array(size);
    const third = thirdMoment && model.s2 * years * 3 < 600;
    this.lnM3 = new Float64Array(third ? size : 0);
    this.dM3 = new Float64Array(third ? size : 0);
    this.annuity = 0;
    const n = this.months;
    const { m, s2 } = model;
    const f = this.fraction;
    if (n === 0) return;
    if (s2 === 0) {
      let annuity = 0;
      for (let u = 0; u < n; u++) annuity += Math.exp((m * u) / 12 + m * f);
      this.annuity = annuity;
      return;
    }
    const a = m / 12;
    const b2 = s2 / 12;
    const V = s2 * years;
    // Weights of the grouped double sum: lnG[t] = ln Σ_{u_j + u_k = t} e^{b²·min(u_j, u_k)}.
    const prefix = new Float64Array(n + 1);
    for (let u = 0; u < n; u++) prefix[u + 1] = prefix[u]! + Math.exp(b2 * u);
    const pairs = 2 * n - 1;
    const lnG = new Float64Array(pairs);
    for (let t = 0; t < pairs; t++) {
      const lo = Math.max(0, t - (n - 1));
      const hi = Math.floor(t / 2);
      let g = 2 * (prefix[hi + 1]! - prefix[lo]!);
      if (t % 2 === 0) g -= Math.exp((b2 * t) / 2);
      lnG[t] = Math.log(g);
    }
    const triples = 3 * n - 2;
    const lnG3 = third ? tripleWeights(n, b2) : new Float64Array(0);
    const v1 = (u: number) => b2 * u + s2 * f;
    const v2 = (t: number) => b2 * t + 2 * s2 * f;
    const base1 = new Float64Array(n);
    for (let u = 0; u < n; u++) {
      const v = v1(u);
      base1[u] = a * u + m * f + (v - (v * v) / V) / 2;
    }
    const base2 = new Float64Array(pairs);
    for (let t = 0; t < pairs; t++) {
      const v = v2(t);
      base2[t] = a * t + 2 * m * f + v / 2 - (v * v) / (2 * V) + s2 * f + lnG[t]!;
    }
    const v3 = (t: number) => b2 * t + 3 * s2 * f;
    const base3 = new Float64Array(third ? triples : 0);
    for (let t = 0; t < base3.length; t++) {
      const v = v3(t);
      base3[t] = a * t + 3 * m * f + v / 2 - (v * v) / (2 * V) + 3 * s2 * f + lnG3[t]!;
    }
    const sum1 = new PowerSum(base1, b2, s2 * f, this.sd);
    const sum2 = new PowerSum(base2, b2, 2 * s2 * f, this.sd);
    const sum3 = third ? new PowerSum(base3, b2, 3 * s2 * f, this.sd) : undefined;
    const ds = new Float64Array(size);
    for (let i = 0; i < size; i++) ds[i] = (-Z_MAX + i * TABLE_STEP) / this.sd;
    sum1.fill(ds, this.lnM1, this.dM1);
    sum2.fill(ds, this.lnM2, this.dM2);
    sum3?.fill(ds, this.lnM3, this.dM3);
  }

  private interpolate(values: Float64Array, slopes: Float64Array, z: number): number {
    const last = values.length - 1;
    const x = (z + Z_MAX) / TABLE_STEP;
    if (x <= 0) return values[0]! + slopes[0]! * (z + Z_MAX);
    if (x >= last) return values[last]! + slopes[last]! * (z - Z_MAX);
    const i = Math.floor(x);
    const t = x - i;
    const h = TABLE_STEP;
    const t2 = t * t;
    const t3 = t2 * t;
    return (
      (2 * t3 - 3 * t2 + 1) * values[i]! +
      (t3 - 2 * t2 + t) * h * slopes[i]! +
      (-2 * t3 + 3 * t2) * values[i + 1]! +
      (t3 - t2) * h * slopes[i + 1]!
    );
  }

  /**
   * P(B ≥ e^{lnLevel} | z): a lognormal shifted to match the first three conditional moments, or the plain lognormal
   * with the first two where the dispersion is too small for the third to be resolved (the two agree there).
   */
  private conditional(z: number, l1: number, l2: number, lnLevel: number): number {
    const lnRatio2 = Math.max(0, l2 - 2 * l1);
    const cv2 = Math.expm1(lnRatio2);
    if (this.lnM3.length > 0 && cv2 > 1e-5) {
      const l3 = this.interpolate(this.lnM3, this.dM3, z);
      // Skewness γ of B|z from its raw moments (scaled by the mean); the shifted lognormal has γ = w³ + 3w with
      // w² = e^{ζ²} − 1.
      const gamma = (Math.expm1(l3 - 3 * l1) - 3 * cv2) / (cv2 * Math.sqrt(cv2));
      if (gamma > 0 && Number.isFinite(gamma)) return shiftedLognormalExceeds(cv2, gamma, Math.expm1(lnLevel - l1));
    }
    const eta = l1 - lnRatio2 / 2;
    const margin = eta - lnLevel;
    return lnRatio2 > 0 ? normalCdf(margin / Math.sqrt(lnRatio2)) : margin >= 0 ? 1 : 0;
  }

  /** P(W_T ≥ target). */
  probability(capital: number, monthly: number, target: number): number {
    if (target <= 0) return 1;
    const contributes = monthly > 0 && this.months > 0;
    if (this.model.s2 === 0) {
      const wealth = capital * Math.exp(this.mean) + (contributes ? monthly * this.annuity : 0);
      return wealth >= target * (1 - DETERMINISTIC_TOLERANCE) ? 1 : 0;
    }
    const lnK = Math.log(target);
    const lnC = Math.log(capital);
    // z* where capital alone reaches the target (+∞ without capital).
    const zStar = capital > 0 ? (lnK - lnC - this.mean) / this.sd : Infinity;
    if (!contributes) return capital > 0 ? normalCdf(-zStar) : 0;
    const upper = capital > 0 ? normalCdf(-zStar) : 0;
    const end = Math.min(zStar, Z_LIMIT);
    if (end <= -Z_LIMIT) return upper;
    const lnc = Math.log(monthly);
    const lnResidual = (z: number) => (capital > 0 ? lnK + Math.log(-Math.expm1(lnC + this.mean + this.sd * z - lnK)) : lnK);
    const given = (z: number): number =>
      this.conditional(z, this.interpolate(this.lnM1, this.dM1, z), this.interpolate(this.lnM2, this.dM2, z), lnResidual(z) - lnc);
    const integrand = (z: number): number => PHI_NORM * Math.exp(-0.5 * z * z) * given(z);
    // The part of [−6.5, end] integrated numerically, and the normal mass above it where the conditional probability
    // is already 1 (to 1e-13).
    let from = -Z_LIMIT;
    let to = end;
    let certain = 0;
    // The conditional probability is a step where c·E[B|z] crosses the residual K − C·e^λ (B|z has a small
    // dispersion, and the residual falls with z); that crossing is located by regula falsi and gets panels of its own,
    // scaled to the step's width.
    const margin = (z: number) => this.interpolate(this.lnM1, this.dM1, z) + lnc - lnResidual(z);
    const breaks: number[] = [-Z_LIMIT, end];
    for (let z = -Z_LIMIT + 1.5; z < end; z += 1.5) breaks.push(z);
    if (margin(-Z_LIMIT) < 0 && margin(end - 1e-12) > 0) {
      const hi = boundary(margin, 0, -Z_LIMIT, end - 1e-12, 1e-8, false);
      const h = 1e-5;
      const slope =
        (margin(Math.min(hi + h, end)) - margin(Math.max(hi - h, -Z_LIMIT))) / (Math.min(hi + h, end) - Math.max(hi - h, -Z_LIMIT));
      const l1 = this.interpolate(this.lnM1, this.dM1, hi);
      const dispersion = Math.sqrt(Math.max(this.interpolate(this.lnM2, this.dM2, hi) - 2 * l1, 1e-12));
      const width = Number.isFinite(slope) && slope > 0 ? dispersion / slope : 0.1;
      for (const k of [-10, -4, -1.5, 0, 1.5, 4, 10]) breaks.push(hi + k * width);
      // The conditional probability rises with z (c·B|z grows, the residual falls): 1e-13 ten widths below the
      // step, it is less further down, and the panels there are skipped; within 1e-13 of 1 ten widths above, the
      // rest is the normal mass up to `end`.
      const below = hi - 10 * width;
      const above = hi + 10 * width;
      if (below > from && given(below) < 1e-13) from = below;
      if (above < to && given(above) > 1 - 1e-13) {
        certain = normalCdf(-above) - normalCdf(-end);
        to = above;
      }
    }
    if (zStar <= Z_LIMIT) for (let width = 0.5; width > 1e-3; width /= 4) breaks.push(end - width);
    let count = 0;
    for (const z of breaks) if (z >= from && z <= to) panelEnds[count++] = z;
    const points = panelEnds.subarray(0, count).sort();
    let integral = certain;
    for (let i = 0; i + 1 < points.length; i++) {
      const lo = points[i]!;
      const hi = points[i + 1]!;
      if (hi - lo < 1e-14) continue;
      const half = (hi - lo) / 2;
      const mid = (hi + lo) / 2;
      let sum = 0;
      for (let k = 0; k < GL.x.length; k++) sum += GL.w[k]! * integrand(mid + half * GL.x[k]!);
      integral += sum * half;
    }
    return Math.min(1, upper + integral);
  }
}
