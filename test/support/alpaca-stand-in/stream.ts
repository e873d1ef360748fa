import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';

/** A message a stream client sent, as it was parsed, and the key id the connection was authenticated with then. */
export interface StreamFrame {
  keyId?: string;
  message: unknown;
  at: Date;
}

interface Client {
  socket: WebSocket;
  keyId?: string;
  listening: boolean;
}

/**
 * The trading stream (`/stream`): authenticate, listen to `trade_updates`, receive each update of the account's
 * orders. As Alpaca's paper stream does, every message goes out as a binary frame holding JSON. Both ways of
 * authenticating Alpaca accepts are taken: `{"action":"auth","key":...,"secret":...}` (Alpaca's documentation) and
 * `{"action":"authenticate","data":{"key_id":...,"secret_key":...}}` (what the SDK 4.0.2 sends).
 */
export class TradeUpdateStream {
  muted = false;
  repeat = false;
  readonly frames: StreamFrame[] = [];
  private readonly server = new WebSocketServer({ noServer: true });
  private readonly clients = new Set<Client>();

  constructor(private readonly authenticate: (keyId: unknown, secretKey: unknown) => string | undefined) {
    this.server.on('connection', (socket: WebSocket) => this.accept(socket));
  }

  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.server.handleUpgrade(request, socket, head, (ws) => this.server.emit('connection', ws, request));
  }

  /** Sends one `trade_updates` message to the account's listening connections, twice when repeating, none when muted. */
  publish(keyId: string, data: Record<string, unknown>): void {
    if (this.muted) return;
    for (const client of this.clients) {
      if (client.keyId !== keyId || !client.listening) continue;
      for (let i = 0; i < (this.repeat ? 2 : 1); i++) send(client.socket, { stream: 'trade_updates', data });
    }
  }

  /** Cuts every connection without a closing handshake, as a lost network does. */
  drop(): void {
    for (const client of this.clients) client.socket.terminate();
    this.clients.clear();
  }

  /** How many connections are authenticated and listening to trade updates. */
  get listeners(): number {
    return [...this.clients].filter((c) => c.listening).length;
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    const client: Client = { socket, listening: false };
    this.clients.add(client);
    socket.on('close', () => this.clients.delete(client));
    socket.on('error', () => socket.terminate());
    socket.on('message', (raw: RawData) => this.receive(client, raw));
  }

  private receive(client: Client, raw: RawData): void {
    const text = (Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw)).toString('utf8');
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      this.frames.push({ keyId: client.keyId, message: text, at: new Date() });
      send(client.socket, { stream: 'error', data: { error_message: 'invalid message: not JSON' } });
      return;
    }
    this.frames.push({ keyId: client.keyId, message, at: new Date() });
    const data = (typeof message.data === 'object' && message.data !== null ? message.data : {}) as Record<string, unknown>;
    if (message.action === 'auth' || message.action === 'authenticate') {
      const keyId = this.authenticate(message.key ?? data.key_id, message.secret ?? data.secret_key);
      client.keyId = keyId;
      client.listening = false;
      const status = keyId ? 'authorized' : 'unauthorized';
      send(client.socket, { stream: 'authorization', data: { action: 'authenticate', status } });
      if (!keyId) client.socket.close(1008, 'unauthorized');
    } else if (message.action === 'listen') {
      if (!client.keyId) {
        send(client.socket, { stream: 'authorization', data: { action: 'listen', status: 'unauthorized' } });
        return;
      }
      const streams = Array.isArray(data.streams) ? data.streams : [];
      client.listening = streams.includes('trade_updates');
      send(client.socket, { stream: 'listening', data: { streams: client.listening ? ['trade_updates'] : [] } });
    }
  }
}

function send(socket: WebSocket, message: unknown): void {
  if (socket.readyState === socket.OPEN) socket.send(Buffer.from(JSON.stringify(message)), { binary: true });
}
