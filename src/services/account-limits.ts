// What an account may hold of what it can create without bound otherwise (issue 34): the webhook endpoints its deliveries
// fan out to, and the API clients it makes in the dashboard. Past a limit, creating another is 409 limit-reached;
// removing one makes room. (What it creates in time — ideas, policy versions, reports — is held by quotas.ts; previews by
// preview.ts; proposed orders come only from ideas.)
import { ProblemError } from '../problems.js';

export const ACCOUNT_LIMITS = {
  webhookEndpoints: { limit: 16, what: 'webhook endpoints' },
  apiClients: { limit: 20, what: 'active API clients' },
} as const;

/** Refuses another of `kind` when the account already holds `held` of them. */
export function checkAccountLimit(kind: keyof typeof ACCOUNT_LIMITS, held: number): void {
  const { limit, what } = ACCOUNT_LIMITS[kind];
  if (held < limit) return;
  throw new ProblemError('limit-reached', `This account has its ${limit} ${what}, the most it may hold; remove one to add another.`, {
    limit,
  });
}
