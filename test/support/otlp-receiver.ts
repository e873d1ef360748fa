import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** A span as an OTLP exporter sent it: ids in hex, attributes by key (strings, numbers and booleans). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

type JsonValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: JsonValue }[];
}
interface JsonRequest {
  resourceSpans?: { scopeSpans?: { spans?: JsonSpan[] }[] }[];
}

const scalar = (value: JsonValue) =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue ?? ''));

function fromJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as JsonRequest;
  return (request.resourceSpans ?? []).flatMap((resource) =>
    (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, scalar(value)])),
      })),
    ),
  );
}

/** The fields of one protobuf message by number: varints as numbers, length-delimited ones as bytes (fixed ones skipped). */
function protobufFields(buffer: Uint8Array): Map<number, (number | Uint8Array)[]> {
  const fields = new Map<number, (number | Uint8Array)[]>();
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 1; ; shift *= 128) {
      const byte = buffer[at++]!;
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < buffer.length) {
    const key = varint();
    const [field, wire] = [Math.floor(key / 8), key % 8];
    const values = fields.get(field) ?? fields.set(field, []).get(field)!;
    if (wire === 0) values.push(varint());
    else if (wire === 2) {
      const length = varint();
      values.push(buffer.subarray(at, (at += length)));
    } else at += wire === 1 ? 8 : 4;
  }
  return fields;
}

const bytes = (message: Map<number, (number | Uint8Array)[]>, field: number) => (message.get(field) ?? []) as Uint8Array[];
const hex = (value: Uint8Array | undefined) => (value && value.length > 0 ? Buffer.from(value).toString('hex') : undefined);

/** ExportTraceServiceRequest → ResourceSpans (1) → ScopeSpans (2) → Span (2): ids, name, kind and string attributes. */
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  return bytes(protobufFields(body), 1).flatMap((resource) =>
    bytes(protobufFields(resource), 2).flatMap((scope) =>
      bytes(protobufFields(scope), 2).map((raw) => {
        const span = protobufFields(raw);
        const attributes = bytes(span, 9).map((pair) => {
          const keyValue = protobufFields(pair);
          const value = protobufFields(bytes(keyValue, 2)[0] ?? new Uint8Array());
          return [Buffer.from(bytes(keyValue, 1)[0]!).toString('utf8'), Buffer.from(bytes(value, 1)[0] ?? []).toString('utf8')];
        });
        return {
          traceId: hex(bytes(span, 1)[0])!,
          spanId: hex(bytes(span, 2)[0])!,
          parentSpanId: hex(bytes(span, 4)[0]),
          name: Buffer.from(bytes(span, 5)[0] ?? []).toString('utf8'),
          kind: (span.get(6)?.[0] as number | undefined) ?? 0,
          attributes: Object.fromEntries(attributes) as Record<string, string>,
        };
      }),
    ),
  );
}

/**
 * An OTLP/HTTP receiver of traces for tests (what a collector's `otlphttp` receiver accepts at `/v1/traces`): it keeps
 * every span sent as `http/json`, and as `http/protobuf` (decoded by hand: ids, name, kind, string attributes), and the
 * content type of each request.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: { path: string; contentType: string }[] = [];
  private server: Server | undefined;
  port = 0;

  async listen(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        const contentType = req.headers['content-type'] ?? '';
        this.requests.push({ path: req.url ?? '', contentType });
        const json = contentType.startsWith('application/json');
        if (req.url === '/v1/traces') this.spans.push(...(json ? fromJson(body) : fromProtobuf(body)));
        res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
      });
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** What OTEL_EXPORTER_OTLP_ENDPOINT names: the exporter adds `/v1/traces`. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The spans received of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
