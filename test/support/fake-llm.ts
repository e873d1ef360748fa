import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the next chat completion answers: assistant `content` (any string), an HTTP error status, or nothing at all
 * (`hang`: the request stays unanswered until the caller gives up or the fake closes), or, `later`, what a promise
 * the test settles gives (the request is held until then).
 */
export type FakeReply = { content: string } | { status: number } | { hang: true } | { later: Promise<FakeReply> };

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FakeLlm {
  /** The base URL to configure as ASSISTANT_BASE_URL. */
  url: string;
  requests: ReceivedRequest[];
  reply(next: FakeReply): void;
  close(): Promise<void>;
}

/** A local OpenAI-compatible chat-completions endpoint whose answer the test sets. */
export async function startFakeLlm(): Promise<FakeLlm> {
  const requests: ReceivedRequest[] = [];
  let next: FakeReply = { content: '{"rationale": "Nothing to do.", "orders": []}' };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // recorded as text: the test sees what was sent
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      void answer(next, body);
    });
    async function answer(given: FakeReply, body: unknown): Promise<void> {
      const reply = 'later' in given ? await given.later : given;
      if ('hang' in reply || 'later' in reply) return;
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error": {"message": "not found"}}');
      } else if ('status' in reply) {
        res
          .writeHead(reply.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'fake failure', type: 'server_error' } }));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `chatcmpl-${requests.length}`,
            object: 'chat.completion',
            created: 1_790_000_000,
            model: (body as { model?: string }).model ?? 'fake',
            choices: [{ index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
          }),
        );
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reply(value) {
      next = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
