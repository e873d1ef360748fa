// The month-by-month step of the log-grid wealth law (src/feasibility/laws/log-grid.ts), in AssemblyScript compiled to
// WebAssembly with 128-bit SIMD (scripts/generate.mjs writes it to generated/grid-step-wasm.ts). The same
// arithmetic in the same order as its TypeScript reference (test/support/feasibility-kernels/grid-step.ts), so the
// results are the same to the bit but for the sign of a zero (test/unit/feasibility-kernels.test.ts); it saves about
// 60 % of the whole domain's CPU p50 and half its p99 (docs/benchmarks.md), because two outputs share each instruction
// and memory access needs no bounds checks.
//
// A month is, on the distribution function F of L = ln(W/c), node j at F + 8·(pad + j):
//   1. U = L + X: U_i = Σ_d w_d·F_{i−from−d}, eight outputs at once (four pairs of lanes, each summing its taps in
//      the same order), with F's 0s below its window [lo, hi] and 1s above written out first;
//   2. L' = softplus(U): F_j = Σ_k λ_jk·U_{cell_j − 2 + k}, clamped to [0, 1], for the nodes whose source position
//      lies within U's window; two nodes at once where their cells are adjacent.
// The Lagrange weights λ are stored in pairs of nodes, interleaved: λ_jk at lagrange + 96·(j >> 1) + 16·k + 8·(j & 1),
// so that one load reads both nodes' k-th weights.

let resultLo: i32 = 0;
let resultHi: i32 = 0;

/** The first byte free for the caller's arrays. */
export function heapBase(): usize {
  return __heap_base;
}
/** The window [lo, hi] after the last `step`. */
export function stepLo(): i32 {
  return resultLo;
}
export function stepHi(): i32 {
  return resultHi;
}

@inline function at(base: usize, index: i32): usize {
  return base + (<usize>index << 3);
}

/** F at node j from the six U values around its cell, one node at a time. */
@inline function node(U: usize, pad: i32, c: i32, lagrange: usize, j: i32): f64 {
  const u = at(U, pad + c - 2);
  const w = lagrange + <usize>(j >> 1) * 96 + (<usize>(j & 1) << 3);
  const value = load<f64>(w) * load<f64>(u) + load<f64>(w, 16) * load<f64>(u, 8) + load<f64>(w, 32) * load<f64>(u, 16)
    + load<f64>(w, 48) * load<f64>(u, 24) + load<f64>(w, 64) * load<f64>(u, 32) + load<f64>(w, 80) * load<f64>(u, 40);
  return value < 0 ? 0 : value > 1 ? 1 : value;
}

/**
 * Steps F forward by `months` months from its window [lo, hi]; the new window (where epsilon < F < 1 − epsilon) is
 * read with stepLo and stepHi. `pad` nodes of room either side hold the kernel's reach and a block of eight.
 */
export function step(F: usize, U: usize, weights: usize, taps: i32, from: i32, source: usize, cell: usize,
  lagrange: usize, size: i32, zero: i32, pad: i32, epsilon: f64, lo: i32, hi: i32, months: i32): void {
  const to = from + taps - 1;
  const zeros = f64x2.splat(0);
  const ones = f64x2.splat(1);
  for (let k = 0; k < months; k++) {
    for (let q = lo - taps - 8; q < lo; q++) store<f64>(at(F, pad + q), 0);
    for (let q = hi + 1; q <= hi + taps + 8; q++) store<f64>(at(F, pad + q), 1);
    const uLo = max(0, lo + from);
    const uHi = min(size - 1, hi + to);
    for (let i = uLo; i <= uHi; i += 8) {
      let s0 = zeros;
      let s1 = zeros;
      let s2 = zeros;
      let s3 = zeros;
      const first = pad + i - from;
      for (let d = 0; d < taps; d++) {
        const w = f64x2.splat(load<f64>(at(weights, d)));
        const p = at(F, first - d);
        s0 = f64x2.add(s0, f64x2.mul(w, v128.load(p)));
        s1 = f64x2.add(s1, f64x2.mul(w, v128.load(p, 16)));
        s2 = f64x2.add(s2, f64x2.mul(w, v128.load(p, 32)));
        s3 = f64x2.add(s3, f64x2.mul(w, v128.load(p, 48)));
      }
      const out = at(U, pad + i);
      v128.store(out, s0);
      v128.store(out, s1, 16);
      v128.store(out, s2, 32);
      v128.store(out, s3, 48);
    }
    lo = uLo;
    hi = uHi;
    for (let q = lo - 6; q < lo; q++) store<f64>(at(U, pad + q), 0);
    for (let q = hi + 1; q <= hi + 8; q++) store<f64>(at(U, pad + q), 1);
    // Nodes whose source lies below U's window are 0, above it 1 (the window's bounds carry that).
    const below = <f64>(lo - 2);
    const above = <f64>(hi + 1);
    let j = max(zero, lo);
    while (j < size && load<f64>(at(source, j)) < below) j++;
    let newLo = size;
    let newHi = -1;
    while (j < size) {
      if (load<f64>(at(source, j)) > above) break;
      const c = load<i32>(cell + (<usize>j << 2));
      if ((j & 1) == 0 && j + 1 < size && load<i32>(cell + (<usize>(j + 1) << 2)) == c + 1
        && load<f64>(at(source, j + 1)) <= above) {
        const u = at(U, pad + c - 2);
        const w = lagrange + <usize>(j >> 1) * 96;
        let v = f64x2.mul(v128.load(w), v128.load(u));
        v = f64x2.add(v, f64x2.mul(v128.load(w, 16), v128.load(u, 8)));
        v = f64x2.add(v, f64x2.mul(v128.load(w, 32), v128.load(u, 16)));
        v = f64x2.add(v, f64x2.mul(v128.load(w, 48), v128.load(u, 24)));
        v = f64x2.add(v, f64x2.mul(v128.load(w, 64), v128.load(u, 32)));
        v = f64x2.add(v, f64x2.mul(v128.load(w, 80), v128.load(u, 40)));
        v = f64x2.max(zeros, f64x2.min(ones, v));
        v128.store(at(F, pad + j), v);
        const v0 = f64x2.extract_lane(v, 0);
        const v1 = f64x2.extract_lane(v, 1);
        if (newLo == size) {
          if (v0 > epsilon) newLo = j;
          else if (v1 > epsilon) newLo = j + 1;
        }
        if (v1 < 1 - epsilon) newHi = j + 1;
        else if (v0 < 1 - epsilon) newHi = j;
        j += 2;
        continue;
      }
      const value = node(U, pad, c, lagrange, j);
      store<f64>(at(F, pad + j), value);
      if (value > epsilon && newLo == size) newLo = j;
      if (value < 1 - epsilon) newHi = j;
      j++;
    }
    lo = min(newLo, size - 1);
    hi = max(newHi, lo);
  }
  resultLo = lo;
  resultHi = hi;
}
