// A baseline for `make bench`: the same bytes and headers the service answers, from a bare node:http server or a
// plain express 5 app (no middleware), so the service's overhead shows as a ratio measured in the same run.
import http from 'node:http';
import express from 'express';

const [kind, port] = process.argv.slice(2);
const body = process.env.BASELINE_BODY ?? '{}';
const headers = JSON.parse(process.env.BASELINE_HEADERS ?? '{}');

let server;
if (kind === 'express') {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.get('/{*path}', (_req, res) => {
    res.set(headers).status(200).send(body);
  });
  server = http.createServer(app);
} else {
  server = http.createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
}
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
