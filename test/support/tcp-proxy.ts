import { createServer, connect, type Server, type Socket } from 'node:net';

/** A TCP proxy the test can cut and restore, to stand for a database that goes away and comes back. */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private server?: Server;
  private up = true;
  port = 0;

  constructor(private readonly targetPort: number, private readonly targetHost = '127.0.0.1') {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      if (!this.up) {
        client.destroy();
        return;
      }
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as { port: number }).port;
  }

  /** Drops every open connection and refuses new ones. */
  cut(): void {
    this.up = false;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.up = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
