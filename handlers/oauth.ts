import type { components } from '../generated/api.js';
import { basicCredentials } from '../src/http/basic-credentials.js';
import type { Handler } from '../src/http/handler-types.js';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const CACHEABLE = { 'Cache-Control': 'public, max-age=300' };

export const issueToken: Handler<'issueToken'> = async ({ body, request, services }) => {
  const authorization = request.headers.authorization;
  // HTTP Basic is read here, at the edge; the use case takes the credentials.
  const token = await services.oauth.issueToken(
    body ?? {},
    basicCredentials(Array.isArray(authorization) ? authorization[0] : authorization),
  );
  return { status: 200, body: token, headers: NO_STORE };
};

export const getAuthorizationServerMetadata: Handler<'getAuthorizationServerMetadata'> = async ({ services }) => ({
  status: 200,
  body: services.oauth.authorizationServerMetadata(),
  headers: CACHEABLE,
});

export const getProtectedResourceMetadata: Handler<'getProtectedResourceMetadata'> = async ({ services }) => ({
  status: 200,
  body: services.oauth.protectedResourceMetadata(),
  headers: CACHEABLE,
});

export const getJsonWebKeySet: Handler<'getJsonWebKeySet'> = async ({ services }) => ({
  status: 200,
  body: services.oauth.jsonWebKeySet() as { keys: components['schemas']['JsonWebKey'][] },
  headers: CACHEABLE,
});
