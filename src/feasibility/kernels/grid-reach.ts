// The backward month of the log grid (laws/log-grid-reach.ts) in WebAssembly (wasm/grid-reach.ts, compiled into
// generated/grid-reach-wasm.ts): one instance and one memory for the process, in which a grid lays out its arrays.
import { gridReachWasm } from '../../../generated/grid-reach-wasm.js';
import { WasmModule, type ModuleExports } from './wasm.js';

/**
 * A backward grid's arrays: V (node j at 2 + j, two nodes of room below and 16 above), W (`taps` + 16 beyond its
 * `uCount`), the month's kernel weights, and each u node's interpolation cell and six weights (lagrange[6·i + k]).
 */
export interface ReachArrays {
  V: Float64Array;
  W: Float64Array;
  weights: Float64Array;
  cell: Int32Array;
  lagrange: Float64Array;
}

const wasm = new WasmModule<
  ModuleExports & {
    reachLo(): number;
    reachHi(): number;
    reach(
      V: number,
      W: number,
      weights: number,
      taps: number,
      cell: number,
      lagrange: number,
      uCount: number,
      size: number,
      epsilon: number,
      low: number,
      lo: number,
      hi: number,
      months: number,
    ): void;
  }
>(gridReachWasm);

/** The arrays for a grid of `size` nodes, views of the module's memory: the caller's until its next call. */
export function layoutReach(size: number, taps: number, uCount: number): ReachArrays {
  const lengths = [size + 18, uCount + taps + 16, taps, uCount, 6 * uCount];
  const [V, W, weights, cell, lagrange] = wasm.layout(8 * lengths[0]!, 8 * lengths[1]!, 8 * lengths[2]!, 4 * lengths[3]!, 8 * lengths[4]!);
  const buffer = wasm.exports.memory.buffer;
  return {
    V: new Float64Array(buffer, V, lengths[0]),
    W: new Float64Array(buffer, W, lengths[1]),
    weights: new Float64Array(buffer, weights, lengths[2]),
    cell: new Int32Array(buffer, cell, lengths[3]),
    lagrange: new Float64Array(buffer, lagrange, lengths[4]),
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
  wasm.exports.reach(
    V.byteOffset,
    W.byteOffset,
    weights.byteOffset,
    weights.length,
    cell.byteOffset,
    lagrange.byteOffset,
    uCount,
    size,
    epsilon,
    low,
    lo,
    hi,
    months,
  );
  return { lo: wasm.exports.reachLo(), hi: wasm.exports.reachHi() };
}
