import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type AlpacaDocument, checkRequest, checkResponse } from './alpaca-contract.js';
import { Broker } from './alpaca-stand-in/broker.js';
import { type Answer, answer, refusal } from './alpaca-stand-in/routes.js';
import { type AccountSpec, D, refuse, type SubmitOutcome } from './alpaca-stand-in/state.js';
import { type StreamFrame, TradeUpdateStream } from './alpaca-stand-in/stream.js';
import { orderView, updateView } from './alpaca-stand-in/views.js';

export type { AccountSpec, StreamFrame, SubmitOutcome };

/** `503`: every request is answered 503 with Alpaca's error body. `reset`: the connection is cut once the request is read. */
export type DownMode = '503' | 'reset';

/** Alpaca's own limit is not documented; an order is a few hundred bytes. */
const MAX_BODY_BYTES = 1 << 20;

export interface RecordedRequest {
  host: 'trading' | 'data';
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; the text when it was not JSON; undefined when there was none. */
  body: unknown;
  at: Date;
  /** What the request does wrong by Alpaca's document of its host (`checkRequest`). */
  violations: string[];
  /** The status and body answered; absent while the answer is delayed, and for a connection cut (down, reset). */
  status?: number;
  answer?: unknown;
}

/**
 * A stateful Alpaca on 127.0.0.1 for tests: the Trading API, the market-data latest trades and the `trade_updates`
 * stream, speaking what Alpaca's documents (test/fixtures/alpaca/) and the SDK 4.0.2 say. Every request is recorded
 * with its contract violations. State changes when a request arrives; `slow` delays only the answer, so a client that
 * times out on an order has still placed it, as with the real broker.
 */
export class AlpacaStandIn {
  readonly requests: RecordedRequest[] = [];
  private readonly broker = new Broker((event) => this.stream.publish(event.keyId, updateView(event)));
  private readonly stream = new TradeUpdateStream((keyId, secret) => this.broker.authenticate(text(keyId), text(secret))?.keyId);
  private readonly tradingServer = createServer((req, res) => this.receive('trading', req, res));
  private readonly dataServer = createServer((req, res) => this.receive('data', req, res));
  private readonly timers = new Set<NodeJS.Timeout>();
  private downMode: DownMode | undefined;
  private upTimer: NodeJS.Timeout | undefined;
  private delayMs = 0;
  private slowOnly: string | undefined;
  private downOnly: { mode: DownMode; only: string } | undefined;

  private constructor() {
    this.tradingServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
  }

  /** Listens on the given ports, or on ports the system picks. */
  static async start(options: { port?: number; dataPort?: number } = {}): Promise<AlpacaStandIn> {
    const standIn = new AlpacaStandIn();
    await listen(standIn.tradingServer, options.port ?? 0);
    await listen(standIn.dataServer, options.dataPort ?? 0);
    return standIn;
  }

  get tradingUrl(): string {
    return `http://127.0.0.1:${(this.tradingServer.address() as AddressInfo).port}`;
  }

  get dataUrl(): string {
    return `http://127.0.0.1:${(this.dataServer.address() as AddressInfo).port}`;
  }

  get streamUrl(): string {
    return `${this.tradingUrl.replace(/^http/, 'ws')}/stream`;
  }

  addAccount(spec: AccountSpec): { id: string; accountNumber: string } {
    const { id, accountNumber } = this.broker.addAccount(spec);
    return { id, accountNumber };
  }

  /** The latest trade of a symbol: the market-data host answers it, and orders fill at it. */
  setPrice(symbol: string, price: string, at?: Date): void {
    this.broker.setPrice(symbol, price, at);
  }

  /** Opening the market sends orders accepted while it was closed to it; closing it expires working day orders. */
  setClock(clock: { isOpen: boolean; nextOpen?: Date; nextClose?: Date }): void {
    this.broker.setClock(clock);
  }

  /**
   * What a new order does when it reaches the market (at once if it is open, else when it opens): `fill` (updates new,
   * fill), `partial` (new, partial_fill of half), `rest` (new), `reject` (rejected, at once, open or not). The POST is
   * answered 200 with the order as accepted (`pending_new`, or `accepted` while closed) and its updates may reach the
   * stream before that answer; refusals that are answers come from the state: 403 beyond the buying power or the
   * position, 422 for a duplicate client_order_id, an unknown symbol or an order the stand-in does not take. A limit
   * order the latest price does not reach rests whatever this says.
   */
  get onSubmit(): SubmitOutcome {
    return this.broker.onSubmit;
  }

  set onSubmit(outcome: SubmitOutcome) {
    this.broker.onSubmit = outcome;
  }

  /** Fills an open order now: `qty` (default what remains) at `price` (default the latest price, else its limit). */
  fill(clientOrderId: string, execution: { qty?: string; price?: string } = {}): void {
    const { qty, price } = execution;
    this.broker.execute(
      this.broker.orderForTest(clientOrderId),
      qty === undefined ? undefined : new D(qty),
      price === undefined ? undefined : new D(price),
    );
  }

  expire(clientOrderId: string): void {
    this.broker.finish(this.broker.orderForTest(clientOrderId), 'expired');
  }

  rejectLater(clientOrderId: string): void {
    this.broker.finish(this.broker.orderForTest(clientOrderId), 'rejected');
  }

  /**
   * Goes down for `ms` (until `up()` when not given): `503` by default, or `reset`. The stream refuses new connections
   * too; open ones stay (`dropStream` cuts them). `only` ('POST /v2/orders') takes down those requests alone.
   */
  down(options: number | { ms?: number; mode?: DownMode; only?: string } = {}): void {
    const { ms, mode = '503', only } = typeof options === 'number' ? { ms: options } : options;
    this.downMode = only ? undefined : mode;
    this.downOnly = only ? { mode, only } : undefined;
    clearTimeout(this.upTimer);
    if (ms !== undefined) this.upTimer = setTimeout(() => this.up(), ms);
  }

  up(): void {
    this.downMode = this.downOnly = undefined;
    clearTimeout(this.upTimer);
  }

  /** Delays every HTTP answer by `ms` (only those to `only`, e.g. 'POST /v2/orders', when given); 0 answers at once again. */
  slow(ms: number, only?: string): void {
    this.delayMs = ms;
    this.slowOnly = only;
  }

  dropStream(): void {
    this.stream.drop();
  }

  /** While muted, trade updates are lost (not queued), as on a stream that silently stopped; the state still changes. */
  muteStream(muted: boolean): void {
    this.stream.muted = muted;
  }

  get repeatUpdates(): boolean {
    return this.stream.repeat;
  }

  set repeatUpdates(repeat: boolean) {
    this.stream.repeat = repeat;
  }

  /** How many stream connections are authenticated and listening to `trade_updates`. */
  get streamListeners(): number {
    return this.stream.listeners;
  }

  /** Every message stream clients sent, parsed. */
  get streamFrames(): readonly StreamFrame[] {
    return this.stream.frames;
  }

  /** The requests that broke the contract of their host's document, with what they broke. */
  violations(): { request: RecordedRequest; violations: string[] }[] {
    return this.requests.filter((r) => r.violations.length > 0).map((request) => ({ request, violations: request.violations }));
  }

  /** The stand-in's own answers that do not match the document (`checkResponse`): none, unless it has drifted. */
  answerViolations(): { request: RecordedRequest; violations: string[] }[] {
    return this.requests.flatMap((request) => {
      if (request.status === undefined) return [];
      const violations = checkResponse(documentOf(request.host), request.method, request.path, request.status, request.answer);
      return violations.length > 0 ? [{ request, violations }] : [];
    });
  }

  /** The orders held, as the REST API shows them, oldest first: one account's, or every account's. */
  orders(keyId?: string): Record<string, unknown>[] {
    return this.broker.orders(keyId).map(orderView);
  }

  async close(): Promise<void> {
    this.up();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.stream.close();
    await Promise.all([this.tradingServer, this.dataServer].map((server) => stop(server)));
  }

  private receive(host: 'trading' | 'data', req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => this.respond(host, req, res, Buffer.concat(chunks).toString('utf8')));
  }

  private respond(host: 'trading' | 'data', req: IncomingMessage, res: ServerResponse, text: string): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const parsed = parseJson(text);
    const request: RecordedRequest = {
      host,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: parsed.ok ? parsed.value : text,
      at: new Date(),
      violations: [],
    };
    request.violations = checkRequest(documentOf(host), request);
    this.requests.push(request);
    const downMode = this.downOnly?.only === `${request.method} ${request.path}` ? this.downOnly.mode : this.downMode;
    if (downMode === 'reset') return void req.socket.destroy();
    const given: Answer =
      downMode === '503' ? { status: 503, body: { code: 50300000, message: 'service unavailable' } } : this.answer(request, parsed.ok);
    const write = () => {
      request.status = given.status;
      request.answer = given.body;
      if (res.destroyed) return;
      const headers = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': randomUUID() };
      res.writeHead(given.status, headers).end(given.body === undefined ? undefined : JSON.stringify(given.body));
    };
    if (this.delayMs <= 0 || (this.slowOnly && this.slowOnly !== `${request.method} ${request.path}`)) return write();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      write();
    }, this.delayMs);
    this.timers.add(timer);
  }

  private answer(request: RecordedRequest, isJson: boolean): Answer {
    const account = this.broker.authenticate(header(request.headers, 'apca-api-key-id'), header(request.headers, 'apca-api-secret-key'));
    if (!account) return refusal(refuse.unauthorized());
    if (!isJson) return { status: 400, body: { code: 40010000, message: 'request body format is invalid' } };
    return answer(request.host, this.broker, request.method, request.path, { account, query: request.query, body: request.body });
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (this.downMode === 'reset') return void socket.destroy();
    if (this.downMode === '503' || path !== '/stream') {
      const status = this.downMode === '503' ? '503 Service Unavailable' : '404 Not Found';
      return void socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    }
    this.stream.upgrade(req, socket, head);
  }
}

/** An empty body is none; any other must be JSON. */
function parseJson(text: string): { ok: boolean; value?: unknown } {
  if (text === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function documentOf(host: 'trading' | 'data'): AlpacaDocument {
  return host === 'trading' ? 'trading' : 'market-data';
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
}

async function stop(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
