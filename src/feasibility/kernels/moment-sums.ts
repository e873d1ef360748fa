// The sums behind the conditional lognormal's moment tables (laws/conditional-lognormal.ts) in WebAssembly
// (wasm/moments.ts, compiled into generated/moments-wasm.ts): one instance and one memory for the process, the arrays
// copied in and out.
import { momentsWasm } from '../../../generated/moments-wasm.js';
import { WasmModule, type ModuleExports } from './wasm.js';

const moments = new WasmModule<ModuleExports & {
  tripleSums(n: number, power: number, point: number, diff: number): void;
  powerSums(coefficients: number, terms: number, ratios: number, count: number, out: number): void;
}>(momentsWasm);

/**
 * The grouped triple sums of the third moment, before their logarithm: for every sorted triple u1 ≤ u2 ≤ u3 < n the
 * weight power[u1]²·power[u2] times its number of orderings, at t = u1 + u2 + u3, as `point` (u3 = u2) and a
 * difference array `diff` over the u3 > u2 (both zeroed by the caller, 3n − 1 long).
 */
export function tripleSums(power: Float64Array, point: Float64Array, diff: Float64Array): void {
  const [powerAt, pointAt, diffAt] = moments.layout(8 * power.length, 8 * point.length, 8 * diff.length);
  const heap = moments.heap;
  heap.set(power, powerAt! / 8);
  heap.set(point, pointAt! / 8);
  heap.set(diff, diffAt! / 8);
  moments.exports.tripleSums(power.length, powerAt!, pointAt!, diffAt!);
  point.set(heap.subarray(pointAt! / 8, pointAt! / 8 + point.length));
  diff.set(heap.subarray(diffAt! / 8, diffAt! / 8 + diff.length));
}

/** Σ_t c_t·r^t and Σ_t c_t·r^t·t for each ratio r, written to `sums` as (sum, weighted) pairs. */
export function powerSums(coefficients: Float64Array, ratios: Float64Array, sums: Float64Array): void {
  // The module takes the ratios in pairs: an odd count repeats the last.
  const count = ratios.length + (ratios.length % 2);
  const [terms, ratiosAt, out] = moments.layout(8 * coefficients.length, 8 * count, 16 * count);
  const heap = moments.heap;
  heap.set(coefficients, terms! / 8);
  heap.set(ratios, ratiosAt! / 8);
  if (count > ratios.length) heap[ratiosAt! / 8 + count - 1] = ratios[ratios.length - 1]!;
  moments.exports.powerSums(terms!, coefficients.length, ratiosAt!, count, out!);
  // The module writes pairs of ratios: the two sums, then the two weighted sums.
  for (let i = 0; i < ratios.length; i++) {
    const at = out! / 8 + 4 * (i >> 1) + (i & 1);
    sums[2 * i] = heap[at]!;
    sums[2 * i + 1] = heap[at + 2]!;
  }
}
