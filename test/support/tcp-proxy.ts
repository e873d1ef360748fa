import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy the test can cut (connections dropped, new ones refused: a database that went away) or freeze
 * (connections stay open but nothing is forwarded either way: a database that hangs, like a SIGSTOPped server),
 * and then restore.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  /** Connections accepted while frozen, waiting to be opened upstream. */
  private readonly held: (() => void)[] = [];
  /** What forwards the data held back while frozen, one per direction of each connection. */
  private readonly flushers = new Set<() => void>();
  private server?: Server;
  private up = true;
  private frozen = false;
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      if (!this.up) {
        client.destroy();
        return;
      }
      this.track(client);
      const open = () => {
        const upstream = connect(this.targetPort, this.targetHost);
        this.track(upstream);
        this.forward(client, upstream);
        this.forward(upstream, client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      };
      if (this.frozen) this.held.push(open);
      else open();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  /** Copies data from one socket to the other, holding it back while frozen. */
  private forward(from: Socket, to: Socket): void {
    const queue: Buffer[] = [];
    const flush = () => {
      while (!this.frozen && queue.length > 0) to.write(queue.shift()!);
    };
    from.on('data', (chunk: Buffer) => {
      queue.push(chunk);
      flush();
    });
    this.flushers.add(flush);
    from.on('close', () => this.flushers.delete(flush));
  }

  /** Drops every open connection and refuses new ones. */
  cut(): void {
    this.up = false;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.up = true;
    this.thaw();
  }

  /** Keeps connections open but forwards nothing and connects nothing new until `thaw`. */
  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    for (const flush of this.flushers) flush();
    for (const open of this.held.splice(0)) open();
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
