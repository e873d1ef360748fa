// The webhooks case's receiver, in a process of its own as a partner's would be on its own machine: its work must not
// weigh on the load generator's clock. It answers 200 at once and keeps, per webhook-id, when each copy arrived
// (epoch ms, comparable across processes) with the event's type and order id; the bench collects them over IPC.
import { createServer } from 'node:http';

let pending = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString());
    pending.push({ id: String(req.headers['webhook-id']), at, type: body.type, orderId: body.data.id });
    res.writeHead(200).end();
  });
});
process.on('message', (message) => {
  if (message === 'collect') {
    process.send({ received: pending });
    pending = [];
  }
});
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
