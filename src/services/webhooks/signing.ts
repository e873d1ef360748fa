import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks secrets: `whsec_` and the base64 of a random key (32 bytes; the standard allows 24 to 64). */
export const SECRET_PREFIX = 'whsec_';

export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The `webhook-*` headers of one attempt, as the Standard Webhooks specification defines them. */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs `body` for the message `id` at `timestamp` (Unix seconds) with each secret: `v1,` and the base64
 * HMAC-SHA256 of `id.timestamp.body` under the secret's key; several signatures are space-separated (a rotation's
 * old and new secret), and a receiver accepts the message when any of them verifies.
 */
export function sign(secrets: string[], id: string, timestamp: number, body: string): SignedHeaders {
  const content = `${id}.${timestamp}.${body}`;
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
    return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
  });
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}
