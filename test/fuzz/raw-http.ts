import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** Sent as is: any bytes a fuzzer wants in the request target. */
  target: string;
  /** Sent as is, control characters included (fetch and node:http refuse those: the point is to send them). */
  headers: [string, string][];
  body?: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * One HTTP/1.1 exchange over a fresh connection (`Connection: close`), bytes in and bytes out. `signal` ends it early
 * (a watch's deadline); without one, an answer that does not come within `timeoutMs` is an error.
 */
export function rawRequest(port: number, request: RawRequest, signal?: AbortSignal, timeoutMs = 20_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    const abort = () => socket.destroy(signal!.reason instanceof Error ? signal!.reason : new Error(String(signal!.reason)));
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    const settled = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      settled();
      reject(error);
    });
    socket.on('close', () => {
      settled();
      const data = Buffer.concat(chunks);
      const headerEnd = data.indexOf('\r\n\r\n');
      if (headerEnd < 0)
        return reject(new Error(`no HTTP response (${data.length} bytes): ${JSON.stringify(data.toString('latin1').slice(0, 200))}`));
      const [statusLine = '', ...lines] = data.subarray(0, headerEnd).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        headers[name] = headers[name] ? `${headers[name]}, ${line.slice(colon + 1).trim()}` : line.slice(colon + 1).trim();
      }
      let body: Buffer = data.subarray(headerEnd + 4);
      if (headers['transfer-encoding']?.includes('chunked')) body = dechunk(body);
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') });
    });
    const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
    const head = [
      `${request.method} ${request.target} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Connection: close',
      ...request.headers.map(([name, value]) => `${name}: ${value}`),
      ...(body ? [`Content-Length: ${body.length}`] : []),
    ].join('\r\n');
    socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body ?? Buffer.alloc(0)]));
  });
}

/** The request as a curl command a person can paste to reproduce it ($'…' quoting keeps control characters). */
export function curlOf(baseUrl: string, request: RawRequest): string {
  const escape = (c: string) =>
    c === "'" || c === '\\' ? `\\${c}` : /[\x20-\x7e]/.test(c) ? c : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  const quote = (text: string) =>
    /^[\x20-\x7e]*$/.test(text) && !text.includes("'") ? `'${text}'` : `$'${[...text].map(escape).join('')}'`;
  const parts = ['curl', '-i', '--path-as-is', '-X', request.method, quote(`${baseUrl}${request.target}`)];
  for (const [name, value] of request.headers) parts.push('-H', quote(`${name}: ${value}`));
  if (request.body !== undefined) parts.push('--data-raw', quote(request.body));
  return parts.join(' ');
}
