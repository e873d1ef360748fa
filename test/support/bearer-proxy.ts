import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';

/**
 * A reverse proxy on `socket` (already listening on 127.0.0.1, see listeningSocket) that forwards every request to
 * 127.0.0.1:`target` with `Authorization: Bearer <token>` added, as a gateway in front of the service might. The other
 * headers pass unchanged (Host and Origin too), and answers stream back (SSE included). For clients that cannot send
 * a token, such as the MCP conformance suite.
 */
export async function startBearerProxy(socket: NetServer, target: number, token: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const upstream = request(
      { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.statusMessage, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socket, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
