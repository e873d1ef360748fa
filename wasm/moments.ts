// The sums behind the conditional lognormal's moment tables (src/feasibility/laws/conditional-lognormal.ts), in AssemblyScript compiled to
// WebAssembly with 128-bit SIMD (scripts/generate.mjs writes it to generated/moments-wasm.ts). The same arithmetic
// as the JavaScript it replaced, in the same order, so the results are the same to the bit; the logarithms and
// exponentials stay in JavaScript, whose Math functions the module would not reproduce to the bit.

/** The first byte free for the caller's arrays. */
export function heapBase(): usize {
  return __heap_base;
}

@inline function at(base: usize, index: i32): usize {
  return base + (<usize>index << 3);
}

/**
 * The grouped triple sums of the third moment, before their logarithm: for every sorted triple u1 ≤ u2 ≤ u3 < n the
 * weight power[u1]²·power[u2] times its number of orderings, at t = u1 + u2 + u3, as `point` (u3 = u2) and a
 * difference array `diff` over the u3 > u2 (both zeroed by the caller, 3n − 1 long).
 */
export function tripleSums(n: i32, power: usize, point: usize, diff: usize): void {
  for (let u1 = 0; u1 < n; u1++) {
    const p1 = load<f64>(at(power, u1));
    const square = p1 * p1;
    // u2 = u1: the pair is counted once (u3 = u2) or thrice (u3 > u2) …
    const w = square * p1;
    store<f64>(at(point, 3 * u1), load<f64>(at(point, 3 * u1)) + w);
    if (u1 <= n - 2) {
      store<f64>(at(diff, 3 * u1 + 1), load<f64>(at(diff, 3 * u1 + 1)) + 3 * w);
      store<f64>(at(diff, 2 * u1 + n), load<f64>(at(diff, 2 * u1 + n)) - 3 * w);
    }
    // … u2 > u1: thrice (u3 = u2) or six times (u3 > u2, which needs u2 ≤ n − 2).
    for (let u2 = u1 + 1; u2 < n - 1; u2++) {
      const v = square * load<f64>(at(power, u2));
      const a = at(point, u1 + 2 * u2);
      store<f64>(a, load<f64>(a) + 3 * v);
      const b = at(diff, u1 + 2 * u2 + 1);
      store<f64>(b, load<f64>(b) + 6 * v);
      const c = at(diff, u1 + u2 + n);
      store<f64>(c, load<f64>(c) - 6 * v);
    }
    if (u1 < n - 1) {
      const a = at(point, u1 + 2 * (n - 1));
      store<f64>(a, load<f64>(a) + 3 * (square * load<f64>(at(power, n - 1))));
    }
  }
}

/**
 * Σ_t c_t·r^t and Σ_t c_t·r^t·t for each of `count` ratios r (an even count), two at a time in the two lanes,
 * written to out as (sum, weighted) pairs.
 */
export function powerSums(coefficients: usize, terms: i32, ratios: usize, count: i32, out: usize): void {
  for (let i = 0; i < count; i += 2) {
    const r = v128.load(at(ratios, i));
    let power = f64x2.splat(1);
    let sum = f64x2.splat(0);
    let weighted = f64x2.splat(0);
    for (let t = 0; t < terms; t++) {
      const term = f64x2.mul(f64x2.splat(load<f64>(at(coefficients, t))), power);
      sum = f64x2.add(sum, term);
      weighted = f64x2.add(weighted, f64x2.mul(term, f64x2.splat(<f64>t)));
      power = f64x2.mul(power, r);
    }
    v128.store(at(out, 2 * i), sum);
    v128.store(at(out, 2 * i + 2), weighted);
  }
}
