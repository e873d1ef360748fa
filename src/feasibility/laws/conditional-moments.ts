// The conditional moments' sums of the conditional lognormal (conditional-lognormal.ts): the power sums its moment
// tables read at every table point, and the third moment's triple weights, kept per horizon.
import { powerSums, tripleSums } from '../kernels/moment-sums.js';
import { Memo } from '../memo.js';

/** The moment tables span z ∈ [−Z_MAX, Z_MAX]. */
export const Z_MAX = 6.5;

/**
 * ln Σ_t e^{base[t]! + v(t)·d} with v(t) = step·t + offset, and its derivative in z (= mean of v / sd), for many d:
 * with A_t = e^{base[t]! − max} the sum is a polynomial in r = e^{step·d}, evaluated without further exponentials
 * when the exponents' spread keeps every term representable (otherwise term by term, shifted by the largest).
 */
export class PowerSum {
  private readonly coefficients: Float64Array;
  private readonly shift: number;
  private readonly fast: boolean;
  constructor(
    private readonly base: Float64Array,
    private readonly step: number,
    private readonly offset: number,
    private readonly sd: number,
  ) {
    let max = -Infinity;
    let min = Infinity;
    for (const b of base) {
      if (b > max) max = b;
      if (b < min) min = b;
    }
    this.shift = max;
    this.coefficients = base.map((b) => Math.exp(b - max));
    this.fast = max - min + (step * base.length * Z_MAX) / sd < 600;
  }

  /** The logarithm of the sum and its slope for every d of `ds`, into `values` and `slopes`. */
  fill(ds: Float64Array, values: Float64Array, slopes: Float64Array): void {
    if (!this.fast) {
      for (let i = 0; i < ds.length; i++) [values[i], slopes[i]] = this.termByTerm(ds[i]!);
      return;
    }
    const { step, offset, coefficients, shift, sd } = this;
    const ratios = ds.map((d) => Math.exp(step * d));
    const sums = new Float64Array(2 * ds.length);
    powerSums(coefficients, ratios, sums);
    for (let i = 0; i < ds.length; i++) {
      const sum = sums[2 * i]!;
      const weighted = sums[2 * i + 1]!;
      values[i] = shift + offset * ds[i]! + Math.log(sum);
      slopes[i] = (step * (weighted / sum) + offset) / sd;
    }
  }

  /** One d, each term's exponential shifted by the largest (where the polynomial's terms would not be representable). */
  private termByTerm(d: number): [number, number] {
    const { base, step, offset } = this;
    let sum = 0;
    let weighted = 0;
    let max = -Infinity;
    for (let t = 0; t < base.length; t++) max = Math.max(max, base[t]! + step * t * d);
    for (let t = 0; t < base.length; t++) {
      const term = Math.exp(base[t]! + step * t * d - max);
      sum += term;
      weighted += term * t;
    }
    return [max + offset * d + Math.log(sum), (step * (weighted / sum) + offset) / this.sd];
  }
}

/**
 * Third moment: sorted triples u1 ≤ u2 ≤ u3 have Σ_{pairs} min(v) = b²·(2u1 + u2) + 3s²f; lnG3[T] =
 * ln Σ_{u1+u2+u3 = T} (multiplicity)·e^{b²(2u1 + u2)}, accumulated over (u1, u2) with a difference array: O(n²), and
 * independent of the leftover fraction, so kept for the horizons a search visits (0.01-year steps share months).
 */
const tripleCache = new Memo<Float64Array>(32);
export function tripleWeights(n: number, b2: number): Float64Array {
  return tripleCache.get(`${n}|${b2}`, () => computeTripleWeights(n, b2));
}

function computeTripleWeights(n: number, b2: number): Float64Array {
  const triples = 3 * n - 2;
  const lnG3 = new Float64Array(triples);
  // Over (u1, u2): the point u3 = u2 at u1 + 2·u2, and u3 > u2 as a range of t in a difference array.
  const power = new Float64Array(n);
  for (let u = 0; u < n; u++) power[u] = Math.exp(b2 * u);
  const point = new Float64Array(triples + 1);
  const diff = new Float64Array(triples + 1);
  tripleSums(power, point, diff);
  let running = 0;
  for (let t = 0; t < triples; t++) {
    running += diff[t]!;
    lnG3[t] = Math.log(point[t]! + running);
  }
  return lnG3;
}
