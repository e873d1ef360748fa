// A webhook receiver: verifies each delivery with the `standardwebhooks` package, acts on each event once, answers
// 204. Run: WEBHOOK_SECRET=whsec_... PORT=4000 npx tsx examples/webhook-receiver.ts
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.WEBHOOK_SECRET!);
const seen = new Set<string>(); // keep this in your database: deliveries are at-least-once

createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    let event: { type: string; timestamp: string; data: { id?: string; status?: string } };
    try {
      event = webhook.verify(body, req.headers as Record<string, string>) as typeof event; // signature and timestamp (5 min)
    } catch {
      return res.writeHead(400).end();
    }
    const id = req.headers['webhook-id'] as string; // the event id, also in GET /v1/events
    if (!seen.has(id)) {
      seen.add(id);
      console.log(JSON.stringify({ id, type: event.type, order: event.data.id, status: event.data.status }));
    }
    res.writeHead(204).end();
  });
}).listen(Number(process.env.PORT ?? 4000), '127.0.0.1');
