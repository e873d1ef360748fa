// Whether a PostgreSQL answers `select 1` at `url` within `timeoutMs`: for the scripts that choose where tests run
// (scripts/test-stores.mjs, scripts/mutation.mjs) and the tests' own choice (test/support/database.ts).
import pg from 'pg';

export async function postgresAnswers(url, timeoutMs = 3000) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
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
