import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 keep-alive connection spoken by hand: the test decides exactly when each request is written. */
export class RawConnection {
  private readonly socket: Socket;
  private buffer = '';
  ended = false;
  private wake: (() => void) | undefined;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.wake?.();
    });
    const end = () => {
      this.ended = true;
      this.wake?.();
    };
    this.socket.on('end', end).on('close', end).on('error', end);
  }

  /**
   * Writes `GET path` and resolves with the whole answer (status, headers, body: every byte read, so nothing is left
   * unread on the connection), or null when the connection ended first.
   */
  async get(path = '/healthz'): Promise<{ status: number; headers: Record<string, string>; body: string } | null> {
    if (this.ended) return null;
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    for (;;) {
      const head = this.buffer.indexOf('\r\n\r\n');
      if (head >= 0) {
        const [statusLine, ...lines] = this.buffer.slice(0, head).split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (this.buffer.length >= head + 4 + length) {
          const body = this.buffer.slice(head + 4, head + 4 + length);
          this.buffer = this.buffer.slice(head + 4 + length);
          return { status: Number(statusLine!.split(' ')[1]), headers, body };
        }
      }
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Writes raw bytes to the server and returns what it answered (the socket closes after one answer). */
export function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes, 'latin1'));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    // A deadline, not a wait: the server ends the connection after its answer; one that does not fails the test.
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not end the connection within 3 s (answered: ${JSON.stringify(answer.slice(0, 200))})`));
    }, 3000).unref();
  });
}
