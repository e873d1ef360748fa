import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { basicCredentials } from './basic-credentials.js';
import { addQuotaHeaders, refuse, WINDOW_MS, type Quota } from './rate-limit-replies.js';
import type { RateLimitStores } from './rate-limit-stores.js';
import type { WindowCount } from '../counters/window-counters.js';

/** How long an address from which a client obtained a token stays one of its usual addresses. */
const KNOWN_ADDRESS_MS = 24 * 3_600_000;
/** Longer client ids (no real one is) are counted under their hash: a key's size does not depend on the input. */
const MAX_KEY_ID = 128;

/** The client's id at the token endpoint (Basic credentials or the form's client_id). */
function tokenClientId(req: Request): string | undefined {
  let id: string | undefined;
  try {
    id = basicCredentials(req.headers.authorization)?.id;
  } catch {
    return undefined; // refused as invalid_client before any secret is checked
  }
  if (id === undefined && Buffer.isBuffer(req.body)) id = new URLSearchParams(req.body.toString('utf8')).get('client_id') ?? undefined;
  if (!id) return undefined;
  return id.length > MAX_KEY_ID ? `sha256:${createHash('sha256').update(id).digest('base64url')}` : id;
}

export interface TokenFailureLimits {
  /** Failed authentications per client_id and address a minute. */
  perAddress: number;
  /** Failed authentications per client_id a minute from all addresses. */
  perClient: number;
  baseUrl: string;
  address: (req: Request) => string;
}

/**
 * Failed client authentication (401) at the token endpoint, counted so that nobody who merely knows a client_id can
 * lock the client out:
 * - per client_id and address, `perAddress` a minute: past it, that address's requests for that client are refused
 *   (`token-failures`) — the client's own addresses keep their budget;
 * - per client_id from all addresses, `perClient` a minute: past it, for the rest of the window, requests are checked
 *   only from the client's usual addresses (one it obtained a token from in the last 24 hours); from any other they
 *   are refused (`token-client-failures`) before any secret is checked, so guesses from many addresses stop costing
 *   bcrypt and stop being answered while the client keeps getting its tokens.
 * Both are announced in `RateLimit` and `RateLimit-Policy` (remaining failures, not requests). Counts are read before
 * the request and added after its answer, so successful requests count nothing; guesses sent at once can pass the
 * check together, at most as many as bcrypt gets through meanwhile (BCRYPT_CONCURRENCY, BCRYPT_WAIT_MS). A store
 * that cannot answer (Redis failing) counts nothing and refuses nothing.
 */
export function tokenFailureLimits(stores: RateLimitStores, limits: TokenFailureLimits): RequestHandler {
  const pairs = stores.counter('token-failures', WINDOW_MS);
  const clients = stores.counter('token-client-failures', WINDOW_MS);
  const known = stores.recent('token-known-addresses', KNOWN_ADDRESS_MS);
  const quota = (name: string, limit: number, key: string, count: WindowCount | undefined): Quota => ({
    name,
    limit,
    key,
    remaining: Math.max(limit - (count?.total ?? 0), 0),
    resetTime: count?.resetTime,
  });
  const exceeded = (count: WindowCount | undefined, limit: number) => (count?.total ?? 0) >= limit;

  return (req, res, next) => {
    const clientId = tokenClientId(req);
    if (clientId === undefined) return next();
    const pairKey = `${clientId} ${limits.address(req)}`;
    Promise.all([pairs.get(pairKey), clients.get(clientId)])
      .then(async ([pair, client]) => {
        addQuotaHeaders(res, [
          quota('token-failures', limits.perAddress, pairKey, pair),
          quota('token-client-failures', limits.perClient, clientId, client),
        ]);
        if (exceeded(pair, limits.perAddress)) {
          const detail =
            `This client failed authentication ${limits.perAddress} times in a minute from this address; ` +
            'wait Retry-After seconds before trying again.';
          return refuse(limits.baseUrl, res, { policy: 'token-failures', detail, resetTime: pair!.resetTime, oauth: true });
        }
        // A usual address is looked up only when it matters; a store that cannot say lets the request be checked.
        if (exceeded(client, limits.perClient) && (await known.has(pairKey)) === false) {
          const detail =
            `This client failed authentication ${limits.perClient} times in a minute; ` +
            'until the window ends only addresses it obtained a token from lately are served. Wait Retry-After seconds.';
          return refuse(limits.baseUrl, res, { policy: 'token-client-failures', detail, resetTime: client!.resetTime, oauth: true });
        }
        res.once('finish', () => {
          if (res.statusCode === 401) {
            void pairs.add(pairKey);
            void clients.add(clientId);
          } else if (res.statusCode === 200) {
            void known.mark(pairKey);
          }
        });
        next();
      })
      .catch(next);
  };
}
