// A baseline for `make bench`: the same status, headers and bytes the service answers, from a bare node:http server,
// a plain express 5 app or a plain fastify 5 app (no middleware or plugins, no logger), whatever the method and path,
// so the service's overhead shows as a ratio measured in the same run. A request's body is not read by node:http or
// express (node drains it); fastify parses a JSON body with its built-in parser, as any fastify app does.
import http from 'node:http';
import express from 'express';
import Fastify from 'fastify';

const [kind, port] = process.argv.slice(2);
const body = process.env.BASELINE_BODY ?? '{}';
const headers = JSON.parse(process.env.BASELINE_HEADERS ?? '{}');
const status = Number(process.env.BASELINE_STATUS ?? 200);
const listening = () => process.stdout.write('listening\n');

let close;
if (kind === 'fastify') {
  // Node's keep-alive timeout, as the service and the other baselines keep (fastify's own is 72 s: `Keep-Alive: timeout=72`).
  const app = Fastify({ logger: false, keepAliveTimeout: 5000 });
  app.all('/*', (_request, reply) => {
    reply.code(status).headers(headers).send(body);
  });
  await app.listen({ port: Number(port), host: '127.0.0.1' });
  listening();
  close = () => app.close();
} else {
  let server;
  if (kind === 'express') {
    const app = express();
    app.disable('x-powered-by');
    app.disable('etag');
    app.all('/{*path}', (_req, res) => {
      res.set(headers).status(status).send(body);
    });
    server = http.createServer(app);
  } else {
    // Its length named, as the frameworks name it (writeHead sends the head at once: without it the body is chunked).
    const head = { ...headers, 'content-length': Buffer.byteLength(body) };
    server = http.createServer((_req, res) => {
      res.writeHead(status, head);
      res.end(body);
    });
  }
  server.listen(Number(port), '127.0.0.1', listening);
  close = () => new Promise((resolve) => server.close(resolve));
}
process.on('SIGTERM', () => Promise.resolve(close()).then(() => process.exit(0)));
