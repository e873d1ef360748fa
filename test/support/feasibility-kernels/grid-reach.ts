// The TypeScript reference of the log grid's backward month (src/feasibility/kernels/grid-reach.ts,
// wasm/grid-reach.ts), with the same signatures: the same arithmetic in the same order. V_k(l) is the probability of
// reaching the target from L_k = l (L = ln(W/c)); a month back, V_{k−1}(l) = E[V_k(softplus(l + X))]:
//   1. W_i = V_k(softplus(u_i)) at every node u_i of U = L + X, read by six-point interpolation at positions fixed by
//      the grid (cell and weights per u node), V taken as 1 above its window's top `hi` and as V_0 below node 0;
//   2. V_{k−1}(l_j) = Σ_d w_d·W_{j+d}, the month's return as a correlation with its sampled density (u node j + d is
//      l node j + from + d), eight outputs at once (eight independent chains of additions, each in order d = 0, 1, …).
// V is 1 above `hi` and the constant `low` up to `lo` (V rises with l; both within epsilon), and only the nodes
// between are computed: a constant stays constant through both steps.
import type { ReachArrays } from '../../../src/feasibility/kernels/grid-reach.js';

/** The arrays for a grid of `size` nodes, a kernel of `taps` and `uCount` u nodes. */
export function layoutReach(size: number, taps: number, uCount: number): ReachArrays {
  return {
    V: new Float64Array(size + 18),
    W: new Float64Array(uCount + taps + 16),
    weights: new Float64Array(taps),
    cell: new Int32Array(uCount),
    lagrange: new Float64Array(6 * uCount),
  };
}

/** Steps V back by `months` months from its window (`low` up to node `lo`, 1 above node `hi`); returns the new window. */
export function stepReach(
  arrays: ReachArrays,
  uCount: number,
  size: number,
  epsilon: number,
  low: number,
  lo: number,
  hi: number,
  months: number,
): { lo: number; hi: number } {
  const { V, W, weights, cell, lagrange } = arrays;
  const taps = weights.length;
  for (let k = 0; k < months; k++) {
    for (let q = -2; q <= lo; q++) V[2 + q] = low;
    for (let q = hi + 1; q <= hi + 8; q++) V[2 + q] = 1;
    // 1. W at every u node whose cell reaches into the window; below it `low`, above it 1.
    let uLow = 0;
    while (uLow < uCount && cell[uLow]! + 3 <= lo) uLow++;
    for (let i = 0; i < uLow; i++) W[i] = low;
    let uTop = uCount;
    for (let i = uLow; i < uCount; i++) {
      const c = cell[i]!;
      if (c - 2 > hi) {
        uTop = i;
        break;
      }
      const w = 6 * i;
      let value =
        lagrange[w]! * V[c]! +
        lagrange[w + 1]! * V[c + 1]! +
        lagrange[w + 2]! * V[c + 2]! +
        lagrange[w + 3]! * V[c + 3]! +
        lagrange[w + 4]! * V[c + 4]! +
        lagrange[w + 5]! * V[c + 5]!;
      value = value < 0 ? 0 : value > 1 ? 1 : value;
      W[i] = value;
    }
    for (let i = uTop; i < uTop + taps + 8; i++) W[i] = 1;
    // 2. The correlation, for the nodes whose taps reach a W of the window.
    const first = Math.max(0, uLow - taps + 1);
    const last = Math.min(size - 1, uTop - 1);
    for (let j = first; j <= last; j += 8) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let s4 = 0;
      let s5 = 0;
      let s6 = 0;
      let s7 = 0;
      for (let d = 0; d < taps; d++) {
        const w = weights[d]!;
        const p = j + d;
        s0 += w * W[p]!;
        s1 += w * W[p + 1]!;
        s2 += w * W[p + 2]!;
        s3 += w * W[p + 3]!;
        s4 += w * W[p + 4]!;
        s5 += w * W[p + 5]!;
        s6 += w * W[p + 6]!;
        s7 += w * W[p + 7]!;
      }
      const out = 2 + j;
      V[out] = s0;
      V[out + 1] = s1;
      V[out + 2] = s2;
      V[out + 3] = s3;
      V[out + 4] = s4;
      V[out + 5] = s5;
      V[out + 6] = s6;
      V[out + 7] = s7;
    }
    const end = Math.min(size - 1, last + 7);
    let top = -1;
    for (let j = end; j >= first; j--) {
      if (V[2 + j]! < 1 - epsilon) {
        top = j;
        break;
      }
    }
    let bottom = first - 1;
    while (bottom < end && V[2 + bottom + 1]! - low < epsilon) bottom++;
    hi = top < 0 ? Math.max(0, first - 1) : top;
    lo = Math.min(bottom, hi);
  }
  return { lo, hi };
}
