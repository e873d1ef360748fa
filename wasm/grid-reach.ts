// The backward month of the log grid (src/feasibility/laws/log-grid-reach.ts), in AssemblyScript compiled to
// WebAssembly with 128-bit SIMD (scripts/generate.mjs writes it to generated/grid-reach-wasm.ts). The same arithmetic
// in the same order as its TypeScript reference (test/support/feasibility-kernels/grid-reach.ts), held to it to the
// bit by test/unit/feasibility-kernels.test.ts; it saves about a third of the whole domain's CPU p99 (docs/benchmarks.md).
//
// V_k(l) is the probability of reaching the target from L_k = l (L = ln(W/c)); a month back,
//   V_{k−1}(l) = E[V_k(softplus(l + X))]:
//   1. W_i = V_k(softplus(u_i)) at every node u_i of U = L + X, read by six-point interpolation at positions fixed by
//      the grid (cell and weights per u node), V taken as 1 above its window's top `hi` and as V_0 below node 0;
//   2. V_{k−1}(l_j) = Σ_d w_d·W_{j+d}, the month's return as a correlation with its sampled density (u node j + d is
//      l node j + from + d), eight outputs at once.
// V is 1 above `hi` and the constant `low` up to `lo` (V rises with l; both within epsilon), and only the nodes
// between are computed: a constant stays constant through both steps. The new window is read with reachLo and
// reachHi.

let resultLo: i32 = 0;
let resultHi: i32 = 0;

/** The first byte free for the caller's arrays. */
export function heapBase(): usize {
  return __heap_base;
}
/** The window after the last `reach`. */
export function reachLo(): i32 {
  return resultLo;
}
export function reachHi(): i32 {
  return resultHi;
}

@inline function at(base: usize, index: i32): usize {
  return base + (<usize>index << 3);
}

/**
 * Steps V (node j at V + 8·(2 + j), two nodes of room below and 16 above; W with `taps` + 16 beyond its `uCount`)
 * back by `months` months, from its window: the constant `low` up to node `lo`, 1 above node `hi`. `cell` and
 * `lagrange` give each of the `uCount` u nodes its interpolation cell and six weights (lagrange + 48·i).
 */
export function reach(V: usize, W: usize, weights: usize, taps: i32, cell: usize, lagrange: usize, uCount: i32,
  size: i32, epsilon: f64, low: f64, lo: i32, hi: i32, months: i32): void {
  const zeros = f64x2.splat(0);
  for (let k = 0; k < months; k++) {
    for (let q = -2; q <= lo; q++) store<f64>(at(V, 2 + q), low);
    for (let q = hi + 1; q <= hi + 8; q++) store<f64>(at(V, 2 + q), 1);
    // 1. W at every u node whose cell reaches into the window; below it `low`, above it 1.
    let uLow = 0;
    while (uLow < uCount && load<i32>(cell + (<usize>uLow << 2)) + 3 <= lo) uLow++;
    for (let i = 0; i < uLow; i++) store<f64>(at(W, i), low);
    let uTop = uCount;
    for (let i = uLow; i < uCount; i++) {
      const c = load<i32>(cell + (<usize>i << 2));
      if (c - 2 > hi) {
        uTop = i;
        break;
      }
      const v = at(V, c);
      const w = lagrange + <usize>i * 48;
      let value = load<f64>(w) * load<f64>(v) + load<f64>(w, 8) * load<f64>(v, 8) + load<f64>(w, 16) * load<f64>(v, 16)
        + load<f64>(w, 24) * load<f64>(v, 24) + load<f64>(w, 32) * load<f64>(v, 32) + load<f64>(w, 40) * load<f64>(v, 40);
      value = value < 0 ? 0 : value > 1 ? 1 : value;
      store<f64>(at(W, i), value);
    }
    for (let i = uTop; i < uTop + taps + 8; i++) store<f64>(at(W, i), 1);
    // 2. The correlation, for the nodes whose taps reach a W of the window.
    const first = max(0, uLow - taps + 1);
    const last = min(size - 1, uTop - 1);
    for (let j = first; j <= last; j += 8) {
      let s0 = zeros;
      let s1 = zeros;
      let s2 = zeros;
      let s3 = zeros;
      for (let d = 0; d < taps; d++) {
        const w = f64x2.splat(load<f64>(at(weights, d)));
        const p = at(W, j + d);
        s0 = f64x2.add(s0, f64x2.mul(w, v128.load(p)));
        s1 = f64x2.add(s1, f64x2.mul(w, v128.load(p, 16)));
        s2 = f64x2.add(s2, f64x2.mul(w, v128.load(p, 32)));
        s3 = f64x2.add(s3, f64x2.mul(w, v128.load(p, 48)));
      }
      const out = at(V, 2 + j);
      v128.store(out, s0);
      v128.store(out, s1, 16);
      v128.store(out, s2, 32);
      v128.store(out, s3, 48);
    }
    const end = min(size - 1, last + 7);
    let top = -1;
    for (let j = end; j >= first; j--) {
      if (load<f64>(at(V, 2 + j)) < 1 - epsilon) {
        top = j;
        break;
      }
    }
    let bottom = first - 1;
    while (bottom < end && load<f64>(at(V, 2 + bottom + 1)) - low < epsilon) bottom++;
    hi = top < 0 ? max(0, first - 1) : top;
    lo = min(bottom, hi);
  }
  resultLo = lo;
  resultHi = hi;
}
