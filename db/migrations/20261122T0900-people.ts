import { sql, type Kysely } from 'kysely';

/** What the human front door stores: sessions, contact messages, solved challenges, failure counters, HMAC keys. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('hmac_keys')
    .addColumn('purpose', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // A solved proof-of-work challenge, remembered until it expires so it is accepted once across instances.
  await db.schema
    .createTable('solved_challenges')
    .addColumn('challenge_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('solved_challenges_expiry_idx').on('solved_challenges').column('expires_at').execute();

  // Recent failures per email address or client address: proof-of-work difficulty and login locks.
  await db.schema
    .createTable('failure_counters')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_at', 'timestamptz', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz')
    .addPrimaryKeyConstraint('failure_counters_pk', ['kind', 'key'])
    .execute();
  await db.schema.createIndex('failure_counters_last_idx').on('failure_counters').column('last_failure_at').execute();

  // Only a SHA-256 of the session token is kept; `flash` holds a one-time message (a new client secret)
  // encrypted under a key derived from the token, so the database alone cannot read it.
  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('flash', 'text')
    .execute();
  await db.schema.createIndex('dashboard_sessions_account_idx').on('dashboard_sessions').column('account_id').execute();
  await db.schema.createIndex('dashboard_sessions_expiry_idx').on('dashboard_sessions').column('expires_at').execute();

  await db.schema
    .createTable('contact_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['contact_messages', 'dashboard_sessions', 'failure_counters', 'solved_challenges', 'hmac_keys']) {
    await db.schema.dropTable(table).execute();
  }
}
