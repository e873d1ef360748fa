import { randomUUID, verify as verifySignature } from 'node:crypto';
import { SignJWT } from 'jose';
import { AuthorizationError } from './authorization-error.js';
import type { Principal } from './principal.js';
import type { SigningKey } from './keys.js';

/** Re-exported for callers that know tokens (tests); the type lives in principal.ts, apart from the verifier. */
export type { Principal };

export const SCOPES = ['read', 'write', 'trade', 'mcp'] as const;
export type Scope = (typeof SCOPES)[number];

/** A verified token's principal, and when the token became usable (its `nbf`, else its `iat`) in ms. */
interface Verified {
  principal: Principal;
  validFrom: number;
}

export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

export interface ClientStatusSource {
  /** The client's current generation, or null when it is unknown or revoked (without a promise when it is known here). */
  currentGeneration(clientId: string): number | null | Promise<number | null>;
}

const MAX_CACHED_TOKENS = 10_000;
/**
 * How far a token's `iat` and `nbf` may be ahead of this server's clock: another instance's clock may run slightly
 * fast (RFC 7519 section 4.1.5 allows "some small leeway").
 */
const CLOCK_SKEW_SECONDS = 60;

/** Issues and verifies RFC 9068 access tokens. */
export class TokenService {
  private readonly verified = new Map<string, Verified>();

  constructor(
    readonly key: SigningKey,
    private readonly issuer: string,
    readonly audience: string,
    private readonly ttlSeconds: number,
    private readonly clients: ClientStatusSource,
  ) {}

  async issue(client: { client_id: string; account_id: string; generation: number }, scopes: string[]) {
    const token = await new SignJWT({ client_id: client.client_id, scope: scopes.join(' '), gen: client.generation })
      .setProtectedHeader({ alg: this.key.alg, typ: 'at+jwt', kid: this.key.kid })
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setSubject(client.account_id)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .setJti(randomUUID())
      .sign(this.key.privateKey);
    return { access_token: token, token_type: 'Bearer' as const, expires_in: this.ttlSeconds, scope: scopes.join(' ') };
  }

  /**
   * The principal of an `Authorization` header: null when there is none; a header that is not a valid bearer
   * token throws `AuthorizationError` (invalid_token). Every adapter authenticates through this.
   */
  async authenticate(header: string | string[] | undefined): Promise<Principal | null> {
    const value = Array.isArray(header) ? header[0] : header;
    if (!value) return null;
    const match = BEARER.exec(value.trim());
    if (!match) throw new AuthorizationError('invalid_token', 'The Authorization header must be "Bearer <access token>".');
    try {
      return await this.verify(match[1]!);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw new AuthorizationError('invalid_token', error.message);
      throw error;
    }
  }

  async verify(token: string): Promise<Principal> {
    const now = Date.now();
    const cached = this.verified.get(token);
    let principal = cached?.principal;
    // A cached token is held to its time window again: this clock may have stepped back since it was cached.
    if (cached && (cached.principal.expiresAt <= now || cached.validFrom > now + CLOCK_SKEW_SECONDS * 1000)) {
      this.verified.delete(token);
      principal = undefined;
    }
    principal ??= await this.verifySignature(token);
    const generation = await this.clients.currentGeneration(principal.clientId);
    if (generation === null || generation !== principal.generation) {
      this.verified.delete(token);
      throw new InvalidTokenError('the client that obtained this token was rotated or revoked');
    }
    return principal;
  }

  /**
   * Verifies a token's signature with node:crypto on this thread (jose verifies through WebCrypto, whose jobs run on
   * libuv's thread pool — behind bcrypt under a token-endpoint flood, which made the first use of a new token take
   * seconds), then its header and claims: issuer, audience, `typ`, expiry, `iat` (required by RFC 9068) and `nbf`
   * (when present, RFC 7519 section 4.1.5) not in the future beyond a small skew, `iat` before `exp`, and a lifetime
   * no longer than the configured one. Only a token that passes every check is cached.
   */
  private async verifySignature(token: string): Promise<Principal> {
    const parts = token.split('.');
    let header: { alg?: unknown; typ?: unknown; kid?: unknown; crit?: unknown };
    let payload: Record<string, unknown>;
    try {
      if (parts.length !== 3) throw new Error('not a JWS');
      header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as typeof header;
      payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      if (!payload || typeof payload !== 'object') throw new Error('no claims');
    } catch {
      throw new InvalidTokenError('the access token is malformed or its signature, issuer or audience is wrong');
    }
    const signature = Buffer.from(parts[2]!, 'base64url');
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
    // The service understands no extension a producer may mark critical (`crit`, RFC 7515 section 4.1.11): a token that
    // names any must be refused, whatever it names.
    const valid =
      header.crit === undefined &&
      header.alg === this.key.alg &&
      (header.typ === 'at+jwt' || header.typ === 'application/at+jwt') &&
      verifySignature(
        this.key.alg === 'EdDSA' ? null : 'sha256',
        signed,
        { key: this.key.publicKey, dsaEncoding: 'ieee-p1363' },
        signature,
      ) &&
      payload.iss === this.issuer &&
      (payload.aud === this.audience || (Array.isArray(payload.aud) && payload.aud.includes(this.audience)));
    if (!valid) throw new InvalidTokenError('the access token is malformed or its signature, issuer or audience is wrong');
    const now = Date.now() / 1000;
    const { exp, iat, nbf } = payload;
    if (typeof exp !== 'number' || typeof iat !== 'number' || typeof payload.jti !== 'string' || typeof payload.sub !== 'string') {
      throw new InvalidTokenError('the access token lacks required claims');
    }
    if (nbf !== undefined && typeof nbf !== 'number') throw new InvalidTokenError('the access token\'s "nbf" claim is not a NumericDate');
    if (exp <= now) throw new InvalidTokenError('the access token has expired');
    if (iat > now + CLOCK_SKEW_SECONDS) throw new InvalidTokenError('the access token was issued in the future');
    if (nbf !== undefined && nbf > now + CLOCK_SKEW_SECONDS)
      throw new InvalidTokenError('the access token is not valid yet (its "nbf" is in the future)');
    if (exp <= iat) throw new InvalidTokenError('the access token expires before it was issued');
    if (exp - iat > this.ttlSeconds + CLOCK_SKEW_SECONDS)
      throw new InvalidTokenError('the access token lives longer than this server issues tokens for');
    const { sub, client_id: clientId, scope, gen, jti } = payload;
    if (typeof clientId !== 'string' || typeof scope !== 'string' || typeof gen !== 'number' || typeof sub !== 'string') {
      throw new InvalidTokenError('the access token lacks required claims');
    }
    const principal: Principal = {
      accountId: sub,
      clientId,
      scopes: new Set(scope.split(' ').filter(Boolean)),
      generation: gen,
      tokenId: jti,
      expiresAt: exp * 1000,
    };
    if (this.verified.size >= MAX_CACHED_TOKENS) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { principal, validFrom: Math.max(iat, nbf ?? iat) * 1000 });
    return principal;
  }
}
