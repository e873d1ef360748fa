import type { Response } from 'express';
import { problemDocument } from '../application/problems.js';
import type { OAuthError, ProblemSlug } from '../problems.js';
import { sendBody, type EncodedBody } from './compression.js';
import type { RefusalPacing } from './refusal-pacing.js';
import type { ApiRequestState } from './request-state.js';

export interface Reply {
  status: number;
  body?: unknown;
  /** `body` as JSON text, when it was serialised already (a success, by its schema's compiled serializer). */
  text?: string;
  headers?: Record<string, string>;
  contentType?: string;
  /** The body already serialised and compressed (it is `body` as JSON): sent in the client's preferred encoding. */
  encoded?: EncodedBody;
}

/** An answer decided at the HTTP edge (a 405 with its `Allow`, say), thrown to where the reply is sent. */
export class ReplyError extends Error {
  constructor(readonly reply: Reply) {
    super(`answered ${reply.status}`);
    this.name = 'ReplyError';
  }
}

export function problemReply(
  slug: ProblemSlug,
  baseUrl: string,
  options: { detail?: string; instance?: string; extensions?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Reply {
  const body = problemDocument(slug, baseUrl, options);
  return { status: body.status, body, headers: options.headers, contentType: 'application/problem+json' };
}

const isProblem = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && typeof (body as { type?: unknown }).type === 'string' && 'status' in body;

/**
 * A reply as answered on `res`: a problem document — in `application/problem+json`, or with the token endpoint's
 * RFC 6749 members — names where it happened (`instance`, the request's path) and the request (`request_id`, as in its
 * log line, and `trace_id` when it is traced). The one place that adds them: every problem any channel sends over HTTP
 * passes here (sendReply).
 */
function atRequest(reply: Reply, res: Response): Reply {
  // An answer is a problem only when it refuses: a success's body is its own (an event has a `type`, an order a `status`).
  if (reply.status < 400 || !isProblem(reply.body)) return reply;
  const request = (res.locals as { api?: ApiRequestState }).api?.requestInfo;
  const ids = request ? { request_id: request.id, ...(request.traceId ? { trace_id: request.traceId } : {}) } : {};
  return { ...reply, body: { ...reply.body, instance: res.req.path, ...ids } };
}

const QUOTA_HEADERS = new Set(['ratelimit', 'ratelimit-policy']);

/**
 * Sets a header on a response; `RateLimit` and `RateLimit-Policy` are lists, so a value for them is added after the
 * policies already there (the route limit's, set before the request ran) rather than replacing them.
 */
export function setResponseHeader(res: Response, name: string, value: string): void {
  const before = QUOTA_HEADERS.has(name.toLowerCase()) ? res.getHeader(name) : undefined;
  res.setHeader(name, typeof before === 'string' && before !== '' ? `${before}, ${value}` : value);
}

/** RFC 6749 section 5.2 error: `application/json` (stock OAuth clients refuse other media types there) and a problem document too. */
export function oauthErrorReply(error: OAuthError, baseUrl: string): Reply {
  const problem = problemDocument(error.slug, baseUrl, { detail: error.description });
  return {
    status: problem.status,
    body: { error: error.code, error_description: error.description, type: problem.type, title: problem.title, status: problem.status },
    headers: {
      'Cache-Control': 'no-store',
      ...(error.code === 'invalid_client' ? { 'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"' } : {}),
    },
    contentType: 'application/json',
  };
}

/**
 * A refusal of a token request at the HTTP level (405, 406, 413, 415) in the token endpoint's RFC 6749 format:
 * `invalid_request` in `application/json`, carrying the problem's own members (type, title, status), as every other
 * token-endpoint error does; stock OAuth clients read nothing else there.
 */
export function tokenEndpointReply(problem: Reply): Reply {
  const { detail, ...members } = problem.body as { detail?: string; title: string };
  return {
    status: problem.status,
    body: { error: 'invalid_request', error_description: detail ?? members.title, ...members },
    headers: { ...problem.headers, 'Cache-Control': 'no-store' },
    contentType: 'application/json',
  };
}

export function sendReply(res: Response, answer: Reply): void {
  // A refusal (429) waits for its address's turn when the app paces them (refusal-pacing.ts); the rest go at once.
  const pacing = answer.status === 429 ? (res.app?.locals as { pacing?: RefusalPacing } | undefined)?.pacing : undefined;
  if (!pacing) return writeReply(res, answer);
  pacing.answer(res.req.ip ?? res.req.socket.remoteAddress ?? 'unknown', () => {
    if (!res.writableEnded && !res.destroyed) writeReply(res, answer);
  });
}

function writeReply(res: Response, answer: Reply): void {
  const reply = atRequest(answer, res);
  if (reply.encoded && reply.status === 200) {
    res.setHeader('Content-Type', `${reply.contentType ?? 'application/json'}; charset=utf-8`);
    reply.encoded.send(res.req, res, reply.status, reply.headers ?? {});
    return;
  }
  res.statusCode = reply.status;
  if (reply.headers) for (const name in reply.headers) setResponseHeader(res, name, reply.headers[name]!);
  if (reply.body === undefined || reply.status === 204 || reply.status === 304) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', `${reply.contentType ?? 'application/json'}; charset=utf-8`);
  sendBody(res.req, res, reply.text ?? JSON.stringify(reply.body));
}
