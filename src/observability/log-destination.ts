import sonicBoom, { type SonicBoom as Boom } from 'sonic-boom';

// CommonJS: module.exports is the class itself, which the types describe as a namespace that holds it.
const SonicBoom = sonicBoom as unknown as typeof Boom;

/**
 * The most a write to a pipe carries whole (POSIX's PIPE_BUF on Linux): cluster workers share the primary's stdout, and
 * a longer write may be interleaved with another worker's, splitting their lines.
 */
const ATOMIC_WRITE_BYTES = 4096;

/**
 * Where the service's log lines go: a file descriptor (stdout), written at the end of each turn of the event loop with
 * the lines logged in that turn, in writes of whole lines of at most ATOMIC_WRITE_BYTES. A busy instance answers many
 * requests in one turn (each its "request completed" line): a write system call for a score of them instead of one
 * each, which was a twelfth of a light read's CPU; an idle one writes each line at the end of the turn that logged it,
 * never later. pino's own choices are a write per line (sync) or a write per batch on libuv's thread pool (async, whose
 * completion costs the loop as much again, shares the pool with bcrypt, and whose batches may pass PIPE_BUF); pino
 * takes any object with `write`, so the batching is this adapter over sonic-boom (pino's destination, which retries a
 * full pipe). `flush` writes what is pending at once (every exit waits for it).
 */
export class TurnBatchedDestination {
  private readonly out: Boom;
  /** Whole chunks, each at most ATOMIC_WRITE_BYTES (or one longer line). */
  private full: string[] = [];
  private chunk = '';
  private chunkBytes = 0;
  private scheduled = false;

  constructor(fd: number) {
    this.out = new SonicBoom({ fd, sync: true });
  }

  write(line: string): boolean {
    const bytes = Buffer.byteLength(line);
    if (this.chunkBytes > 0 && this.chunkBytes + bytes > ATOMIC_WRITE_BYTES) {
      this.full.push(this.chunk);
      this.chunk = '';
      this.chunkBytes = 0;
    }
    this.chunk += line;
    this.chunkBytes += bytes;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
    return true;
  }

  flush(done?: (error?: Error) => void): void {
    this.drain();
    this.out.flush(done);
  }

  private drain(): void {
    this.scheduled = false;
    const chunks = this.full;
    if (this.chunkBytes > 0) chunks.push(this.chunk);
    this.full = [];
    this.chunk = '';
    this.chunkBytes = 0;
    for (const chunk of chunks) this.out.write(chunk);
  }
}
