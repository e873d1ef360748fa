import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * A symmetric key for one purpose (proof-of-work challenges, dashboard CSRF tokens): derived from a configured
 * secret when given, otherwise generated on first start and kept in the database, so every instance on the same
 * database signs and checks with the same key (as the token signing key in keys.ts).
 */
export async function loadHmacKey(db: Kysely<Database>, purpose: string, configured?: string): Promise<Buffer> {
  if (configured) return createHash('sha256').update(`${purpose}\0${configured}`).digest();
  const existing = await db.selectFrom('hmac_keys').select('secret').where('purpose', '=', purpose).executeTakeFirst();
  if (existing) return Buffer.from(existing.secret, 'base64url');
  await db
    .insertInto('hmac_keys')
    .values({ purpose, secret: randomBytes(32).toString('base64url') })
    .onConflict((c) => c.column('purpose').doNothing())
    .execute();
  // Another instance may have won the insert; everyone uses the stored key.
  return loadHmacKey(db, purpose);
}
