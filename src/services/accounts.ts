import type { Kysely } from 'kysely';
import type { Account, Database } from '../../db/schema.js';
import { normalizeEmail } from '../auth/passwords.js';
import { newId } from '../ids.js';

export async function ensureAccount(db: Kysely<Database>, rawEmail: string, name?: string): Promise<Account> {
  const email = normalizeEmail(rawEmail);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new Error(`"${rawEmail}" is not an email address`);
  await db
    .insertInto('accounts')
    .values({ id: newId('acct'), email, name: name ?? email.split('@')[0]! })
    .onConflict((c) => c.column('email').doNothing())
    .execute();
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
}
