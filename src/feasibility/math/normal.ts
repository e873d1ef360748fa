// Standard normal distribution: Φ and Φ⁻¹ accurate to double precision.
/* eslint-disable no-loss-of-precision -- the coefficients are written as published (more digits than a double holds); each rounds to its nearest double */

// W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23 (1969) 631–638,
// coefficients as published in netlib SPECFUN (CALERF); relative error below 1e-15 in double precision.
const A = [3.1611237438705656, 113.864154151050156, 377.485237685302021, 3209.37758913846947, 0.185777706184603153];
const B = [23.6012909523441209, 244.024637934444173, 1282.61652607737228, 2844.23683343917062];
const C = [
  0.564188496988670089, 8.88314979438837594, 66.1191906371416295, 298.635138197400131, 881.95222124176909, 1712.04761263407058,
  2051.07837782607147, 1230.33935479799725, 2.15311535474403846e-8,
];
const D = [
  15.7449261107098347, 117.693950891312499, 537.181101862009858, 1621.38957456669019, 3290.79923573345963, 4362.61909014324716,
  3439.36767414372164, 1230.33935480374942,
];
const P = [
  0.305326634961232344, 0.360344899949804439, 0.125781726111229246, 0.0160837851487422766, 6.58749161529837803e-4, 0.0163153871373020978,
];
const Q = [2.56852019228982242, 1.87295284992346047, 0.527905102951428412, 0.0605183413124413191, 0.00233520497626869185];
const SQRT_PI_INV = 0.56418958354775628695;
const ERFC_ZERO_BEYOND = 26.543;

/** erfc(y) for y ≥ 0.46875; exp(−y²) is split so that its rounding error does not grow with y. */
function erfcTail(y: number): number {
  if (y >= ERFC_ZERO_BEYOND) return 0;
  let ratio: number;
  if (y <= 4) {
    let num = C[8]! * y;
    let den = y;
    for (let i = 0; i < 7; i++) {
      num = (num + C[i]!) * y;
      den = (den + D[i]!) * y;
    }
    ratio = (num + C[7]!) / (den + D[7]!);
  } else {
    const ysq = 1 / (y * y);
    let num = P[5]! * ysq;
    let den = ysq;
    for (let i = 0; i < 4; i++) {
      num = (num + P[i]!) * ysq;
      den = (den + Q[i]!) * ysq;
    }
    ratio = (SQRT_PI_INV - (ysq * (num + P[4]!)) / (den + Q[4]!)) / y;
  }
  const head = Math.trunc(y * 16) / 16;
  const rest = (y - head) * (y + head);
  return Math.exp(-head * head) * Math.exp(-rest) * ratio;
}

export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const y = Math.abs(x);
  if (y <= 0.46875) {
    const ysq = y > 1.11e-16 ? y * y : 0;
    let num = A[4]! * ysq;
    let den = ysq;
    for (let i = 0; i < 3; i++) {
      num = (num + A[i]!) * ysq;
      den = (den + B[i]!) * ysq;
    }
    return 1 - (x * (num + A[3]!)) / (den + B[3]!);
  }
  const tail = erfcTail(y);
  return x < 0 ? 2 - tail : tail;
}

/** Standard normal cumulative distribution function Φ(x) = erfc(−x/√2)/2. */
export function normalCdf(x: number): number {
  if (x === Infinity) return 1;
  if (x === -Infinity) return 0;
  return 0.5 * erfc(-x / Math.SQRT2);
}

export function normalPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

// P. J. Acklam's rational approximation (relative error 1.15e-9), refined below by Halley steps on Φ.
const AA = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const AB = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const AC = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const AD = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

function acklam(p: number): number {
  if (p < P_LOW || p > 1 - P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p < P_LOW ? p : 1 - p));
    const x =
      (((((AC[0]! * q + AC[1]!) * q + AC[2]!) * q + AC[3]!) * q + AC[4]!) * q + AC[5]!) /
      ((((AD[0]! * q + AD[1]!) * q + AD[2]!) * q + AD[3]!) * q + 1);
    return p < P_LOW ? x : -x;
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((AA[0]! * r + AA[1]!) * r + AA[2]!) * r + AA[3]!) * r + AA[4]!) * r + AA[5]!) * q) /
    (((((AB[0]! * r + AB[1]!) * r + AB[2]!) * r + AB[3]!) * r + AB[4]!) * r + 1)
  );
}

/** Inverse of Φ for p in (0, 1); ±Infinity at the end points. */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  let x = acklam(p);
  for (let i = 0; i < 2; i++) {
    const u = (normalCdf(x) - p) / normalPdf(x);
    if (!Number.isFinite(u)) break;
    x -= u / (1 + (x * u) / 2);
  }
  return x;
}
