import { expect } from 'chai';
import { operationScopes } from '../../generated/operation-scopes.js';
import { authorize, AuthorizationError, humanPrincipal, requiredScopes, type Actor } from '../../src/auth/authorize.js';
import type { Principal } from '../../src/auth/tokens.js';
import { loadDocument } from '../../src/document.js';

const origin = { ip: '127.0.0.1', userAgent: 'test' };
const principal = (...scopes: string[]): Principal => ({
  accountId: 'acct_1',
  clientId: 'client_1',
  scopes: new Set(scopes),
  generation: 1,
  tokenId: 't',
  expiresAt: Infinity,
});

function refusal(run: () => unknown): AuthorizationError {
  try {
    run();
  } catch (error) {
    if (error instanceof AuthorizationError) return error;
    throw error;
  }
  throw new Error('authorized');
}

describe('authorize: the one authorization table', () => {
  it('holds exactly the bearer scopes of every operation in openapi.json', () => {
    const document = loadDocument() as unknown as {
      paths: Record<string, Record<string, { operationId?: string; security?: Record<string, string[]>[] }>>;
    };
    const fromSpec: Record<string, string[][]> = {};
    for (const item of Object.values(document.paths)) {
      for (const op of Object.values(item)) {
        const sets = (op.security ?? []).filter((r) => 'OAuth2' in r).map((r) => r.OAuth2!);
        if (op.operationId && sets.length > 0) fromSpec[op.operationId] = sets;
      }
    }
    expect(JSON.parse(JSON.stringify(operationScopes))).to.deep.equal(fromSpec);
  });

  it('clears a caller holding the scope for that operation only', () => {
    const actor = authorize(principal('read'), 'getOrder', origin);
    expect(actor).to.include({ operationId: 'getOrder', accountId: 'acct_1', clientId: 'client_1' });
    const denied = refusal(() => authorize(principal('read'), 'approveOrder', origin));
    expect(denied).to.include({ kind: 'insufficient_scope', requiredScope: 'trade' });
  });

  it('refuses a caller without a token', () => {
    expect(refusal(() => authorize(null, 'getOrder', origin)).kind).to.equal('missing');
  });

  it('also requires mcp through the MCP channel', () => {
    expect(requiredScopes('getOrder', 'mcp')).to.deep.equal([['read', 'mcp']]);
    expect(refusal(() => authorize(principal('read'), 'getOrder', origin, 'mcp'))).to.include({
      kind: 'insufficient_scope',
      requiredScope: 'read mcp',
    });
    expect(authorize(principal('read', 'mcp'), 'getOrder', origin, 'mcp').operationId).to.equal('getOrder');
  });

  it('makes the actor of one operation unusable for another (checked by the type checker)', () => {
    const actor = authorize(principal('read', 'trade'), 'getOrder', origin);
    // @ts-expect-error an actor authorized for getOrder is not one for approveOrder
    const misused: Actor<'approveOrder'> = actor;
    // @ts-expect-error only authorize makes an actor
    const forged: Actor<'getOrder'> = { operationId: 'getOrder', accountId: 'a', clientId: 'c', scopes: new Set(), origin };
    expect([misused, forged]).to.have.length(2);
  });

  it('lets a signed-in human act on their own account through the dashboard channel only, and nothing else release a kill switch', () => {
    const human = humanPrincipal('acct_1');
    expect(authorize(human, 'approveOrder', origin, 'dashboard')).to.include({ accountId: 'acct_1', clientId: 'dashboard' });
    expect(authorize(human, 'releaseKillSwitch', origin, 'dashboard').operationId).to.equal('releaseKillSwitch');
    // @ts-expect-error a dashboard session is not a bearer principal
    expect(refusal(() => authorize(human, 'getOrder', origin)).kind).to.equal('invalid_token');
    // @ts-expect-error a token principal never reaches the dashboard channel
    expect(refusal(() => authorize(principal('read', 'write', 'trade', 'mcp'), 'getOrder', origin, 'dashboard')).kind).to.equal(
      'invalid_token',
    );
    // @ts-expect-error dashboard actions are no operation of the API
    expect(refusal(() => authorize(principal('read', 'write', 'trade', 'mcp'), 'releaseKillSwitch', origin)).kind).to.equal(
      'insufficient_scope',
    );
  });
});
