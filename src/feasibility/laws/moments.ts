// Exact moments of wealth with monthly contributions, month by month, and the law they fit where the horizon's log
// variance is small.
//
// Model (the service's convention, as in conditional-lognormal.ts): W' = W·G + c each whole month, G = e^X independent,
// X ~ N(m/12, s²/12); the leftover fraction f of a year grows by e^Y, Y ~ N(m·f, s²·f). Writing G = E[G]·(1 + ε),
// with e₂ = E[ε²] = e^{b²} − 1 and e₃ = E[ε³] = e₂²(e₂ + 3) (b² the step's log variance; the identity
// x³ − 3x + 2 = (x − 1)²(x + 2) at x = e^{b²} keeps e₃ free of cancellation), the mean E, the squared coefficient
// of variation v = Var/E² and the scaled third central moment k = μ₃/E³ follow exactly, with r = E·E[G]/E' the
// share of the grown wealth in the new mean:
//   E' = E·E[G] + c,  v' = r²·(v(1 + e₂) + e₂),  k' = r³·(k(1 + 3e₂ + e₃) + 3v(2e₂ + e₃) + e₃).
// Every term is positive, so nothing cancels however narrow the law (a volatility of 1e-9 included).
import { normalCdf } from '../math/normal.js';
import { shiftedLognormalExceeds } from '../math/shifted-lognormal.js';
import type { LogModel } from './model.js';

/** Relative tolerance under which deterministic (zero-volatility) wealth counts as reaching the target. */
export const DETERMINISTIC_TOLERANCE = 1e-12;

/** e₂ and e₃ of a step with log variance `variance`. */
function stepMoments(variance: number): { e2: number; e3: number } {
  const e2 = Math.expm1(variance);
  return { e2, e3: e2 * e2 * (e2 + 3) };
}

export class WealthMoments {
  mean: number;
  cv2 = 0;
  /** μ₃/E³. */
  k3 = 0;
  months = 0;
  private readonly monthly: number;
  private readonly model: LogModel;
  private readonly monthGrowth: number;
  private readonly monthCv2Growth: number;
  private readonly e2: number;
  private readonly e3: number;

  constructor(capital: number, monthly: number, model: LogModel) {
    this.mean = capital;
    this.monthly = monthly;
    this.model = model;
    this.monthGrowth = Math.exp(model.m / 12 + model.s2 / 24);
    this.monthCv2Growth = Math.exp(model.s2 / 12);
    ({ e2: this.e2, e3: this.e3 } = stepMoments(model.s2 / 12));
  }

  advanceTo(months: number): void {
    const { e2, e3 } = this;
    for (; this.months < months; this.months++) {
      const grown = this.mean * this.monthGrowth;
      const share = grown / (grown + this.monthly);
      this.k3 = share * share * share * (this.k3 * (1 + 3 * e2 + e3) + 3 * this.cv2 * (2 * e2 + e3) + e3);
      this.cv2 = (this.cv2 * this.monthCv2Growth + e2) * share * share;
      this.mean = grown + this.monthly;
    }
  }

  /** Mean, v and k after a further `fraction` of a year without contributions. */
  private after(fraction: number): { mean: number; cv2: number; k3: number } {
    const { m, s2 } = this.model;
    const { e2, e3 } = stepMoments(s2 * fraction);
    return {
      mean: this.mean * Math.exp((m + s2 / 2) * fraction),
      cv2: this.cv2 * (1 + e2) + e2,
      k3: this.k3 * (1 + 3 * e2 + e3) + 3 * this.cv2 * (2 * e2 + e3) + e3,
    };
  }

  /**
   * An upper bound on P(W ≥ target) after a further `fraction` of a year: Cantelli's inequality on the exact mean
   * and variance (P(W − E ≥ d) ≤ Var / (Var + d²) for d > 0), whatever the law's shape.
   */
  atMost(target: number, fraction: number): number {
    const { m, s2 } = this.model;
    const mean = this.mean * Math.exp((m + s2 / 2) * fraction);
    if (target <= mean) return 1;
    const variance = mean * mean * (this.cv2 * Math.exp(s2 * fraction) + Math.expm1(s2 * fraction));
    const gap = target - mean;
    return variance / (variance + gap * gap);
  }

  /** The lognormal with the same first two moments as wealth after a further `fraction` of a year (ln W ~ N(ν, τ²)). */
  lawAfter(fraction: number): { nu: number; tau2: number } {
    const { m, s2 } = this.model;
    if (this.mean <= 0) return { nu: -Infinity, tau2: 0 };
    const tau2 = Math.log1p(this.cv2 * Math.exp(s2 * fraction) + Math.expm1(s2 * fraction));
    return { nu: Math.log(this.mean) + (m + s2 / 2) * fraction - tau2 / 2, tau2 };
  }

  /**
   * P(W ≥ target) after a further `fraction` of a year, W taken as the lognormal shifted to match its exact first
   * three moments (the `moment_matched` method, used where the horizon's log variance is small: probability.ts).
   * A law too narrow for its skewness to be represented is the two-moment lognormal, and one without spread the
   * deterministic wealth.
   */
  exceeds(target: number, fraction: number): number {
    if (target <= 0) return 1;
    const { mean, cv2, k3 } = this.after(fraction);
    if (!(mean > 0)) return 0;
    const excess = target / mean - 1;
    if (!(cv2 > 0)) return excess <= DETERMINISTIC_TOLERANCE ? 1 : 0;
    const gamma = k3 / (cv2 * Math.sqrt(cv2));
    if (gamma > 0 && Number.isFinite(gamma)) return shiftedLognormalExceeds(cv2, gamma, excess);
    const tau2 = Math.log1p(cv2);
    return normalCdf((-Math.log1p(excess) - tau2 / 2) / Math.sqrt(tau2));
  }
}
