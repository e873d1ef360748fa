import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { open, SealedSecretError } from '../brokers/credentials.js';
import { ConfigError, type BrokersConfig } from '../config.js';

/**
 * At start: the connected accounts' secret keys must open. Without BROKER_CREDENTIALS_KEY, or with another key than
 * the one that sealed them, the service would fail each of those accounts' broker calls; it refuses to start instead.
 */
export async function checkBrokerCredentialsKey(db: Kysely<Database>, key: BrokersConfig['credentialsKey']): Promise<void> {
  const latest = await db
    .selectFrom('broker_connections')
    .select(['account_id', 'secret_sealed'])
    .orderBy('connected_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!latest) return;
  if (!key) {
    const { count } = await db
      .selectFrom('broker_connections')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    throw new ConfigError(
      'BROKER_CREDENTIALS_KEY',
      `is not set, and ${count} account(s) are connected to a broker with secret keys sealed under it: set the key they were sealed with`,
    );
  }
  try {
    open(key.bytes, latest.account_id, latest.secret_sealed);
  } catch (error) {
    if (!(error instanceof SealedSecretError)) throw error;
    throw new ConfigError(
      'BROKER_CREDENTIALS_KEY',
      'does not open the secret keys of the connected broker accounts: they were sealed under another key',
    );
  }
}
