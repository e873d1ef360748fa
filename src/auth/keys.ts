import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

export interface SigningKey {
  kid: string;
  alg: 'ES256' | 'EdDSA';
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
}

const PURPOSE = 'access_token';

async function fromKeyObject(privateKey: KeyObject): Promise<SigningKey> {
  const publicKey = createPublicKey(privateKey);
  const type = privateKey.asymmetricKeyType;
  const curve = privateKey.asymmetricKeyDetails?.namedCurve;
  let alg: SigningKey['alg'];
  if (type === 'ed25519') alg = 'EdDSA';
  else if (type === 'ec' && curve === 'prime256v1') alg = 'ES256';
  else throw new Error('SIGNING_KEY_PEM: the key must be Ed25519 or EC P-256');
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { kid, alg, privateKey, publicKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}

/**
 * The key that signs access tokens: SIGNING_KEY_PEM when set, otherwise one generated on first start and kept in
 * the database, so every instance on the same database signs with the same key.
 */
export async function loadSigningKey(db: Kysely<Database>, pem: string | undefined): Promise<SigningKey> {
  if (pem) return fromKeyObject(createPrivateKey(pem));
  const existing = await db.selectFrom('signing_keys').selectAll().where('purpose', '=', PURPOSE).executeTakeFirst();
  if (existing) return fromKeyObject(createPrivateKey({ key: existing.private_jwk as never, format: 'jwk' }));

  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const candidate = await fromKeyObject(privateKey);
  const privateJwk = privateKey.export({ format: 'jwk' });
  await db
    .insertInto('signing_keys')
    .values({
      purpose: PURPOSE,
      kid: candidate.kid,
      alg: candidate.alg,
      private_jwk: JSON.stringify(privateJwk),
      public_jwk: JSON.stringify(candidate.publicJwk),
    })
    .onConflict((c) => c.column('purpose').doNothing())
    .execute();
  // Another instance may have won the insert; everyone uses the stored key.
  return loadSigningKey(db, undefined);
}
