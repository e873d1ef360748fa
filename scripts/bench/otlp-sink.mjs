// The observability case's trace collector, in a process of its own as a collector would be on its own machine: it
// accepts every OTLP/HTTP export (JSON or protobuf) with 200 and counts the bytes, so the service's exporter never
// retries or backs off. Tells its port, and on 'collect' the exports and bytes it took, over IPC.
import { createServer } from 'node:http';

let exports = 0;
let bytes = 0;
const server = createServer((req, res) => {
  req.on('data', (chunk) => (bytes += chunk.length));
  req.on('end', () => {
    exports++;
    res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end('{}');
  });
});
process.on('message', (message) => {
  if (message === 'collect') process.send({ exports, bytes });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
