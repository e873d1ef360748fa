// The TypeScript reference of the log grid's monthly step (src/feasibility/kernels/grid-step.ts, wasm/grid-step.ts),
// with the same signature: the same arithmetic in the same order, in place on the grid's distribution function F,
// node j at F[pad + j], within its window [lo, hi] (0 below it, 1 above):
//   1. U = L + X: U_i = Σ_d w_d·F_{i−from−d}, with F's 0s below the window and 1s above written out first, so that
//      the loop needs no bounds; eight outputs are summed at once (eight independent chains of additions instead of
//      one, each summing its taps in order d = 0, 1, …);
//   2. L' = softplus(U): F_j = Σ_k λ_jk·U_{cell_j − 2 + k}, clamped to [0, 1], for the nodes whose source position
//      lies within U's window.
// The Lagrange weights λ are stored in pairs of nodes, interleaved: λ_jk at 12·(j >> 1) + 2·k + (j & 1).
import type { SteppedGrid } from '../../../src/feasibility/kernels/grid-step.js';

/** U, as long as F, shared by every grid (a step writes it before it reads it). */
let spare = new Float64Array(0);

/** Steps the grid's F forward by `months` from its window [lo, hi]; returns the new window. */
export function stepGrid(grid: SteppedGrid, lo: number, hi: number, months: number, epsilon: number): { lo: number; hi: number } {
  const { current: F, weights, from, source, cell, lagrange, size, zero, pad } = grid;
  if (spare.length < F.length) spare = new Float64Array(F.length);
  const U = spare;
  const taps = weights.length;
  const to = from + taps - 1;
  for (let k = 0; k < months; k++) {
    for (let q = lo - taps - 8; q < lo; q++) F[pad + q] = 0;
    for (let q = hi + 1; q <= hi + taps + 8; q++) F[pad + q] = 1;
    const uLo = Math.max(0, lo + from);
    const uHi = Math.min(size - 1, hi + to);
    for (let i = uLo; i <= uHi; i += 8) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let s4 = 0;
      let s5 = 0;
      let s6 = 0;
      let s7 = 0;
      const first = pad + i - from;
      for (let d = 0; d < taps; d++) {
        const w = weights[d]!;
        const p = first - d;
        s0 += w * F[p]!;
        s1 += w * F[p + 1]!;
        s2 += w * F[p + 2]!;
        s3 += w * F[p + 3]!;
        s4 += w * F[p + 4]!;
        s5 += w * F[p + 5]!;
        s6 += w * F[p + 6]!;
        s7 += w * F[p + 7]!;
      }
      const out = pad + i;
      U[out] = s0;
      U[out + 1] = s1;
      U[out + 2] = s2;
      U[out + 3] = s3;
      U[out + 4] = s4;
      U[out + 5] = s5;
      U[out + 6] = s6;
      U[out + 7] = s7;
    }
    lo = uLo;
    hi = uHi;
    for (let q = lo - 6; q < lo; q++) U[pad + q] = 0;
    for (let q = hi + 1; q <= hi + 8; q++) U[pad + q] = 1;
    // Nodes whose source lies below U's window are 0, above it 1 (the window's bounds carry that).
    const below = lo - 2;
    const above = hi + 1;
    let j = Math.max(zero, lo);
    while (j < size && source[j]! < below) j++;
    let newLo = size;
    let newHi = -1;
    for (; j < size; j++) {
      if (source[j]! > above) break;
      const u = pad + cell[j]! - 2;
      const w = 12 * (j >> 1) + (j & 1);
      let value =
        lagrange[w]! * U[u]! +
        lagrange[w + 2]! * U[u + 1]! +
        lagrange[w + 4]! * U[u + 2]! +
        lagrange[w + 6]! * U[u + 3]! +
        lagrange[w + 8]! * U[u + 4]! +
        lagrange[w + 10]! * U[u + 5]!;
      value = value < 0 ? 0 : value > 1 ? 1 : value;
      F[pad + j] = value;
      if (value > epsilon && newLo === size) newLo = j;
      if (value < 1 - epsilon) newHi = j;
    }
    lo = Math.min(newLo, size - 1);
    hi = Math.max(newHi, lo);
  }
  return { lo, hi };
}
