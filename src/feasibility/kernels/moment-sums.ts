// The sums behind the conditional lognormal's moment tables (laws/conditional-lognormal.ts): the third moment's
// grouped triple sums, O(n²) a horizon, and the tables' polynomials, one per table point; the logarithms and
// exponentials around them stay with the law. Plain TypeScript: in WebAssembly with SIMD (wasm/moments.ts, removed in
// issue 21) they saved less than the 20 % a kernel must buy to stay (docs/benchmarks.md). Their arrays are the
// caller's, sized by the horizon's months (at most 1,200: 3,599 doubles).

/**
 * The grouped triple sums of the third moment, before their logarithm: for every sorted triple u1 ≤ u2 ≤ u3 < n the
 * weight power[u1]²·power[u2] times its number of orderings, at t = u1 + u2 + u3, as `point` (u3 = u2) and a
 * difference array `diff` over the u3 > u2 (both zeroed by the caller, 3n − 1 long).
 */
export function tripleSums(power: Float64Array, point: Float64Array, diff: Float64Array): void {
  const n = power.length;
  for (let u1 = 0; u1 < n; u1++) {
    const p1 = power[u1]!;
    const square = p1 * p1;
    // u2 = u1: the pair is counted once (u3 = u2) or thrice (u3 > u2) …
    const w = square * p1;
    point[3 * u1] = point[3 * u1]! + w;
    if (u1 <= n - 2) {
      diff[3 * u1 + 1] = diff[3 * u1 + 1]! + 3 * w;
      diff[2 * u1 + n] = diff[2 * u1 + n]! - 3 * w;
    }
    // … u2 > u1: thrice (u3 = u2) or six times (u3 > u2, which needs u2 ≤ n − 2).
    for (let u2 = u1 + 1; u2 < n - 1; u2++) {
      const v = square * power[u2]!;
      point[u1 + 2 * u2] = point[u1 + 2 * u2]! + 3 * v;
      diff[u1 + 2 * u2 + 1] = diff[u1 + 2 * u2 + 1]! + 6 * v;
      diff[u1 + u2 + n] = diff[u1 + u2 + n]! - 6 * v;
    }
    if (u1 < n - 1) {
      const at = u1 + 2 * (n - 1);
      point[at] = point[at]! + 3 * (square * power[n - 1]!);
    }
  }
}

/** Σ_t c_t·r^t and Σ_t c_t·r^t·t for each ratio r, written to `sums` as (sum, weighted) pairs. */
export function powerSums(coefficients: Float64Array, ratios: Float64Array, sums: Float64Array): void {
  const terms = coefficients.length;
  for (let i = 0; i < ratios.length; i++) {
    const r = ratios[i]!;
    let power = 1;
    let sum = 0;
    let weighted = 0;
    for (let t = 0; t < terms; t++) {
      const term = coefficients[t]! * power;
      sum += term;
      weighted += term * t;
      power *= r;
    }
    sums[2 * i] = sum;
    sums[2 * i + 1] = weighted;
  }
}
