import { OAuthError } from '../problems.js';
import type { ClientCredentials } from '../services/oauth.js';

/** The client id and secret of an HTTP Basic header (RFC 6749 section 2.3.1), null without one; OAuthError when malformed. */
export function basicCredentials(header: string | undefined): ClientCredentials | null {
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!match) throw new OAuthError('invalid_client', 'The Authorization header must be HTTP Basic with the client id and secret.');
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'The Basic credentials must be "client_id:client_secret".');
  // RFC 6749 section 2.3.1: both parts are form-urlencoded before base64.
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw new OAuthError('invalid_client', 'The Basic credentials are not correctly encoded.');
  }
}
