import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';

describe('the token signing key from SIGNING_KEY_PEM', () => {
  let server: TestServer;
  const { privateKey } = generateKeyPairSync('ed25519');

  before(async () => {
    server = await startTestServer({ SIGNING_KEY_PEM: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() });
  });
  after(() => server.close());

  it('signs tokens with the configured Ed25519 key, publishes it, and keeps no generated key', async () => {
    const jwks = (await server.api.get('/.well-known/jwks.json')).body;
    expect(jwks.keys).to.have.length(1);
    expect(jwks.keys[0]).to.include({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(jwks.keys[0].x).to.equal(privateKey.export({ format: 'jwk' }).x);

    const client = await server.createClient(['read']);
    const issued = await server.api.post('/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
    });
    const header = JSON.parse(Buffer.from(issued.body.access_token.split('.')[0], 'base64url').toString());
    expect(header).to.include({ alg: 'EdDSA', typ: 'at+jwt', kid: jwks.keys[0].kid });
    expect((await server.api.get('/v1/brokers', { token: issued.body.access_token })).status).to.equal(200);
    expect(await server.database.db.kysely.selectFrom('signing_keys').selectAll().execute()).to.deep.equal([]);
  });
});
