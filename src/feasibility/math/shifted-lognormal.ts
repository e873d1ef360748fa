// A positive, right-skewed quantity X with mean E, squared coefficient of variation cv² and skewness γ > 0, taken as a
// lognormal shifted to match those three moments: X/E = 1 − scale + scale·e^{−ζ²/2 + ζZ}, Z standard normal. The
// lognormal's skewness is w³ + 3w with w² = e^{ζ²} − 1, so w is the real root of w³ + 3w = γ, written as
// 2·sinh(asinh(γ/2)/3): exact for the depressed cubic, and free of the cancellation of Cardano's ∛a − 1/∛a when γ
// is tiny (a nearly symmetric law, w ≈ γ/3). The level is given as its excess over the mean, so that a level within
// a hair of the mean (a narrow law) keeps its precision: X ≥ E·(1 + excess) ⇔ e^{ζZ − ζ²/2} ≥ 1 + excess/scale.
import { normalCdf } from './normal.js';

/** P(X ≥ E·(1 + excess)) under the fit; `cv2` > 0, `gamma` > 0 and finite. */
export function shiftedLognormalExceeds(cv2: number, gamma: number, excess: number): number {
  const w = 2 * Math.sinh(Math.asinh(gamma / 2) / 3);
  const zeta2 = Math.log1p(w * w);
  // The sd of X/E is √cv² = scale·w.
  const relative = excess / (Math.sqrt(cv2) / w);
  if (relative <= -1) return 1;
  return normalCdf((-Math.log1p(relative) - zeta2 / 2) / Math.sqrt(zeta2));
}
