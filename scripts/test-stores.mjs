// Before `make test` runs a suite: which stores answer, said in one line, and a failure when one the suites need is
// missing, unless the run was told to do without it. A green run then always says what it ran on:
//   TEST_DB=embedded   every suite on the embedded database (the PostgreSQL-only tests skip, listed as pending)
//   TEST_REDIS=none    the tests that need a Redis skip (listed as pending)
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { postgresAnswers } from './postgres-answers.mjs';

const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const TIMEOUT_MS = 3000;

/** PING over a plain socket: +PONG, or -NOAUTH from a Redis that wants a password (it answers, the tests will say more). */
function redisAnswers() {
  const { hostname, port } = new URL(redisUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    let seen = '';
    const done = (answer) => {
      clearTimeout(deadline);
      socket.destroy();
      resolve(answer);
    };
    const deadline = setTimeout(() => done(false), TIMEOUT_MS);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      seen += chunk.toString();
      if (seen.includes('\r\n')) done(/^[+-]/.test(seen));
    });
    socket.on('error', () => done(false));
  });
}

const embedded = process.env.TEST_DB === 'embedded';
const noRedis = process.env.TEST_REDIS === 'none';
const [postgres, redis] = await Promise.all([
  embedded ? Promise.resolve(false) : postgresAnswers(postgresUrl, TIMEOUT_MS),
  noRedis ? Promise.resolve(false) : redisAnswers(),
]);
const problems = [];
if (!embedded && !postgres) {
  problems.push(
    `PostgreSQL does not answer at ${postgresUrl} (TEST_DATABASE_URL). Start it (.ci/run does), or run \`make test TEST_DB=embedded\` ` +
      'to run every suite on the embedded database, knowing that the PostgreSQL-only tests then skip.',
  );
}
if (!noRedis && spawnSync('redis-server', ['--version']).error) {
  problems.push(
    'There is no redis-server on PATH: the tests of a Redis that hangs or dies start their own. ' +
      'Install it (.ci/run does), or run `make test TEST_REDIS=none`, knowing that the Redis tests then skip.',
  );
}
if (!noRedis && !redis) {
  problems.push(
    `Redis does not answer at ${redisUrl} (TEST_REDIS_URL). Start it (.ci/run does), or run \`make test TEST_REDIS=none\`, ` +
      'knowing that the tests of shared counters in Redis then skip.',
  );
}
const database = embedded ? 'the embedded database (TEST_DB=embedded: the PostgreSQL-only tests skip)' : `PostgreSQL at ${postgresUrl}`;
const counters = noRedis ? 'no Redis (TEST_REDIS=none: the Redis tests skip)' : `Redis at ${redisUrl}`;
if (problems.length) {
  for (const problem of problems) console.error(`make test: ${problem}`);
  process.exit(1);
}
console.log(`make test: the suites run on ${database}, with ${counters}; then the smoke suites on the embedded database.`);
