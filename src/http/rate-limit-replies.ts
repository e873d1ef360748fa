import { createHash } from 'node:crypto';
import { activeMetrics } from '../observability/metrics.js';
import type { Response } from 'express';
import type { Quota } from '../counters/quota.js';
import { problemReply, sendReply, setResponseHeader } from './reply.js';

export const WINDOW_MS = 60_000;
const WINDOW_SECONDS = WINDOW_MS / 1000;

export type { Quota };

const policies = new Map<string, string>();

function policyOf(quota: Quota): string {
  const cacheKey = `${quota.name} ${quota.limit} ${quota.key}`;
  let policy = policies.get(cacheKey);
  if (policy === undefined) {
    // express-rate-limit's partition key: the first 12 hex digits of the key's SHA-256, in base64.
    const partition = Buffer.from(createHash('sha256').update(quota.key).digest('hex').slice(0, 12)).toString('base64');
    policy = `"${quota.name}"; q=${quota.limit}; w=${WINDOW_SECONDS}; pk=:${partition}:`;
    if (policies.size >= 10_000) policies.clear();
    policies.set(cacheKey, policy);
  }
  return policy;
}

export function secondsUntil(resetTime: Date | undefined): number {
  return resetTime ? Math.max(0, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : WINDOW_SECONDS;
}

const rateLimitOf = (quota: Quota) => `"${quota.name}"; r=${quota.remaining}; t=${secondsUntil(quota.resetTime)}`;

/** The draft-8 `RateLimit` and `RateLimit-Policy` values of these policies, in their order. */
export function quotaHeaders(quotas: Quota[]): { RateLimit: string; 'RateLimit-Policy': string } {
  return {
    RateLimit: quotas.length === 1 ? rateLimitOf(quotas[0]!) : quotas.map(rateLimitOf).join(', '),
    'RateLimit-Policy': quotas.length === 1 ? policyOf(quotas[0]!) : quotas.map(policyOf).join(', '),
  };
}

/** Adds the policies to the response's `RateLimit` and `RateLimit-Policy` lists (after those already there). */
export function addQuotaHeaders(res: Response, quotas: Quota[]): void {
  if (res.headersSent || quotas.length === 0) return;
  const headers = quotaHeaders(quotas);
  setResponseHeader(res, 'RateLimit', headers.RateLimit);
  setResponseHeader(res, 'RateLimit-Policy', headers['RateLimit-Policy']);
}

export interface Refusal {
  /** The violated policy's name (`violated-policies`). */
  policy: string;
  detail: string;
  resetTime: Date | undefined;
  /** At the token endpoint: RFC 6749's error JSON (`slow_down`), which OAuth clients read. */
  oauth: boolean;
}

/** A 429 answer: `Retry-After` and the IANA quota-exceeded problem naming the violated policy. */
export function refuse(baseUrl: string, res: Response, refusal: Refusal): void {
  activeMetrics()?.refusals.inc({ policy: refusal.policy });
  const problem = problemReply('quota-exceeded', baseUrl, {
    detail: refusal.detail,
    extensions: { 'violated-policies': [refusal.policy] },
    headers: { 'Retry-After': String(Math.max(1, secondsUntil(refusal.resetTime))), 'Cache-Control': 'no-store' },
  });
  // At the token endpoint RFC 6749's error JSON, the problem's members with it.
  const body = refusal.oauth ? { error: 'slow_down', error_description: refusal.detail, ...(problem.body as object) } : problem.body;
  sendReply(res, refusal.oauth ? { ...problem, body, contentType: 'application/json' } : problem);
}
