import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateToLatest, openDatabase, type Db } from '../../db/connect.js';

/**
 * Each test file gets its own migrated database: a fresh PostgreSQL database (TEST_DATABASE_URL, default the local
 * server), or the embedded database when TEST_DB=embedded. Without that choice a PostgreSQL that does not answer is an
 * error, never a silent switch to the embedded database (the PostgreSQL-only tests would then skip unseen). Embedded
 * databases are clones of one migrated instance, because a new one takes seconds to start.
 */
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
let backend: Promise<'postgres' | 'embedded'> | undefined;
let template: Promise<Blob> | undefined;

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export function testBackend(): Promise<'postgres' | 'embedded'> {
  backend ??= (async () => {
    if (process.env.TEST_DB === 'embedded') return 'embedded';
    if (await postgresAnswers()) return 'postgres';
    throw new Error(`No PostgreSQL answers at ${adminUrl} (TEST_DATABASE_URL): start it, or set TEST_DB=embedded to run on the embedded database (the PostgreSQL-only tests then skip)`);
  })();
  return backend;
}

async function embeddedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const db = await openDatabase({ dataDir: 'memory://' });
    await migrateToLatest(db.kysely);
    const dump = await db.dump!();
    await db.close();
    return dump;
  })();
  return template;
}

export interface TestDatabase {
  db: Db;
  /** The connection URL when on PostgreSQL (for a second process such as the CLI). */
  url: string | undefined;
  drop(): Promise<void>;
}

export async function createTestDatabase(onQuery?: (sql: string) => void): Promise<TestDatabase> {
  if ((await testBackend()) === 'embedded') {
    const db = await openDatabase({ dataDir: 'memory://', loadDataDir: await embeddedTemplate(), onQuery });
    await migrateToLatest(db.kysely);
    return { db, url: undefined, drop: () => db.close() };
  }
  const name = `ias_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), poolSize: 20, onQuery });
  await migrateToLatest(db.kysely);
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await db.close();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
