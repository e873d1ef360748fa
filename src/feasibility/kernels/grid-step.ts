// The log grid's monthly step in WebAssembly (wasm/grid-step.ts, compiled into generated/grid-step-wasm.ts): one
// instance and one memory for the process. A grid's constant arrays (kernel, source positions, cells, interpolation
// weights) are copied into that memory when the grid steps after another one did; its window of F is copied in
// before each step and back out after it, so the grid's own Float64Array stays what readers read.
import { gridStepWasm } from '../../../generated/grid-step-wasm.js';
import { WasmModule, type ModuleExports } from './wasm.js';

interface GridStepExports extends ModuleExports {
  stepLo(): number;
  stepHi(): number;
  step(
    F: number,
    U: number,
    weights: number,
    taps: number,
    from: number,
    source: number,
    cell: number,
    lagrange: number,
    size: number,
    zero: number,
    pad: number,
    epsilon: number,
    lo: number,
    hi: number,
    months: number,
  ): void;
}

const wasm = new WasmModule<GridStepExports>(gridStepWasm);

/** What the step reads of a grid: F with `pad` nodes of room either side of `size`, and the arrays fixed by the grid. */
export interface SteppedGrid {
  current: Float64Array;
  weights: Float64Array;
  from: number;
  /** Source position of each node in U, its cell, and the six interpolation weights of nodes in pairs, interleaved. */
  source: Float64Array;
  cell: Int32Array;
  lagrange: Float64Array;
  size: number;
  zero: number;
  pad: number;
}

/** Byte offsets of the loaded grid's arrays in the module's memory. */
interface Layout {
  F: number;
  U: number;
  weights: number;
  source: number;
  cell: number;
  lagrange: number;
}

/** The grid whose constant arrays are in memory (its `source` array, which snapshots of it share) and where. */
let loaded: Float64Array | undefined;
let layout: Layout | undefined;

function load(grid: SteppedGrid): Layout {
  if (loaded === grid.source && layout) return layout;
  const [F, U, weights, source, cell, lagrange] = wasm.layout(
    8 * grid.current.length,
    8 * grid.current.length,
    8 * grid.weights.length,
    8 * grid.size,
    4 * grid.size,
    8 * grid.lagrange.length,
  );
  const next: Layout = { F: F!, U: U!, weights: weights!, source: source!, cell: cell!, lagrange: lagrange! };
  wasm.heap.set(grid.weights, next.weights / 8);
  wasm.heap.set(grid.source, next.source / 8);
  wasm.ints.set(grid.cell, next.cell / 4);
  wasm.heap.set(grid.lagrange, next.lagrange / 8);
  loaded = grid.source;
  layout = next;
  return next;
}

/** Steps the grid's F forward by `months` from its window [lo, hi]; returns the new window. */
export function stepGrid(grid: SteppedGrid, lo: number, hi: number, months: number, epsilon: number): { lo: number; hi: number } {
  const at = load(grid);
  const { pad, current } = grid;
  const F = at.F / 8;
  wasm.heap.set(current.subarray(pad + lo, pad + hi + 1), F + pad + lo);
  wasm.exports.step(
    at.F,
    at.U,
    at.weights,
    grid.weights.length,
    grid.from,
    at.source,
    at.cell,
    at.lagrange,
    grid.size,
    grid.zero,
    pad,
    epsilon,
    lo,
    hi,
    months,
  );
  const window = { lo: wasm.exports.stepLo(), hi: wasm.exports.stepHi() };
  current.set(wasm.heap.subarray(F + pad + window.lo, F + pad + window.hi + 1), pad + window.lo);
  return window;
}
