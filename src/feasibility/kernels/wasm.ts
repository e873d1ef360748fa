// The feasibility computation's WebAssembly modules (wasm/*.ts, embedded by scripts/generate.mjs as base64 in
// generated/*-wasm.ts): each instantiated once per process, with views of its memory that follow it when it grows.

/**
 * The most memory a module may grow to. Its largest user, a log grid of at most MAX_NODES (laws/log-grid.ts), needs
 * about 5 MiB; WebAssembly memory never shrinks, so a request that asked for more would keep it for the process.
 */
export const MAX_MEMORY_BYTES = 16 * 1024 * 1024;

export interface ModuleExports {
  memory: WebAssembly.Memory;
  /** The first byte free for the caller's arrays. */
  heapBase(): number;
}

export class WasmModule<E extends ModuleExports> {
  readonly exports: E;
  /** The memory as doubles, renewed when it grows (a grown memory detaches the old views). */
  heap: Float64Array;
  ints: Int32Array;

  constructor(base64: string) {
    this.exports = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(base64, 'base64')), {}).exports as unknown as E;
    this.heap = new Float64Array(this.exports.memory.buffer);
    this.ints = new Int32Array(this.exports.memory.buffer);
  }

  /**
   * Byte offsets for arrays of the given sizes in bytes, from the heap's start, each 16-byte aligned (for the SIMD
   * loads), the memory grown to hold them. Every call lays them out anew: the caller owns the memory until its next.
   */
  layout(...bytes: number[]): number[] {
    let offset = this.exports.heapBase();
    const offsets = bytes.map((size) => {
      const at = Math.ceil(offset / 16) * 16;
      offset = at + size;
      return at;
    });
    if (offset > MAX_MEMORY_BYTES) throw new RangeError(`WebAssembly arrays of ${offset} bytes exceed the ${MAX_MEMORY_BYTES}-byte bound`);
    const missing = offset - this.exports.memory.buffer.byteLength;
    if (missing > 0) {
      this.exports.memory.grow(Math.ceil(missing / 65536));
      this.heap = new Float64Array(this.exports.memory.buffer);
      this.ints = new Int32Array(this.exports.memory.buffer);
    }
    return offsets;
  }
}
