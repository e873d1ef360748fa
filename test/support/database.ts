import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateToLatest, openDatabase, type Db } from '../../db/connect.js';
import { postgresAnswers } from '../../scripts/postgres-answers.mjs';

/**
 * Each test file gets its own migrated database: a fresh PostgreSQL database (TEST_DATABASE_URL, default the local
 * server), or the embedded database when TEST_DB=embedded. Without that choice a PostgreSQL that does not answer is an
 * error, never a silent switch to the embedded database (the PostgreSQL-only tests would then skip unseen). Embedded
 * databases are clones of one migrated instance, because a new one takes seconds to start.
 */
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
let backend: Promise<'postgres' | 'embedded'> | undefined;
let template: Promise<Blob> | undefined;

export function testBackend(): Promise<'postgres' | 'embedded'> {
  backend ??= (async () => {
    if (process.env.TEST_DB === 'embedded') return 'embedded';
    if (await postgresAnswers(adminUrl, 2000)) return 'postgres';
    throw new Error(
      `No PostgreSQL answers at ${adminUrl} (TEST_DATABASE_URL): start it, ` +
        'or set TEST_DB=embedded to run on the embedded database (the PostgreSQL-only tests then skip)',
    );
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

let postgresTemplateName: Promise<string> | undefined;

/**
 * The connections of a test database's pool (TEST_DB_POOL_SIZE): `make mutation` runs four test processes at once
 * against one server (max_connections 100 by default), and a refused connection ("too many clients") would fail a
 * test and count as a killed mutant.
 */
export const TEST_POOL_SIZE = Number(process.env.TEST_DB_POOL_SIZE ?? 20);

/**
 * A migrated database that each test file's database is copied from (`create database … template`), instead of
 * running every migration for every file: one per version of the migrations (named by their hash), made once by
 * whichever test process needs it first (an advisory lock keeps the others waiting) and published by a rename, so
 * no process ever copies a half-migrated one. Templates of older migrations are dropped when a new one is made.
 */
function postgresTemplate(admin: pg.Client): Promise<string> {
  postgresTemplateName ??= (async () => {
    const folder = fileURLToPath(new URL('../../db/migrations/', import.meta.url));
    const hash = createHash('sha256');
    for (const file of readdirSync(folder).sort()) hash.update(file).update(readFileSync(join(folder, file)));
    const name = `ias_template_${hash.digest('hex').slice(0, 16)}`;
    await admin.query(`select pg_advisory_lock(hashtext('ias_test_template'))`);
    try {
      const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (exists.rowCount === 0) {
        const building = `${name}_building`;
        await admin.query(`drop database if exists ${building} with (force)`);
        await admin.query(`create database ${building}`);
        const url = new URL(adminUrl);
        url.pathname = `/${building}`;
        const db = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
        try {
          await migrateToLatest(db.kysely);
        } finally {
          await db.close();
        }
        await admin.query(`alter database ${building} rename to ${name}`);
        const stale = await admin.query<{ datname: string }>(
          `select datname from pg_database where datname like 'ias\\_template\\_%' and datname <> $1`,
          [name],
        );
        for (const { datname } of stale.rows) await admin.query(`drop database if exists ${datname}`).catch(() => {}); // one in use stays
      }
    } finally {
      await admin.query(`select pg_advisory_unlock(hashtext('ias_test_template'))`);
    }
    return name;
  })();
  return postgresTemplateName;
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
  try {
    await admin.query(`create database ${name} template ${await postgresTemplate(admin)}`).catch(async (error: { code?: string }) => {
      // Another process made a template of other migrations (a checkout of another version, or a mutation run's
      // sandbox) and dropped this one as stale: make it again.
      if (error.code !== '3D000') throw error;
      postgresTemplateName = undefined;
      await admin.query(`create database ${name} template ${await postgresTemplate(admin)}`);
    });
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), poolSize: TEST_POOL_SIZE, onQuery });
  await migrateToLatest(db.kysely); // nothing to do on a copy of the template; kept so that a test never runs unmigrated
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
