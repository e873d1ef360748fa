import { expect } from 'chai';
import { sql } from 'kysely';
import { IdempotencyKeys, type Answer, type Answered, type KeyedRequest } from '../../src/application/idempotency.js';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/services/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { until } from '../support/poll.js';

const HOUR = 3_600_000;

/**
 * The idempotency layer itself, on a real database, with use cases that answer what a test needs (a 429, a 500, a
 * computation that races another with the same key) and a clock the test sets: what is stored, what is replayed,
 * when a key expires and when expired keys are swept. The channels' behaviour over HTTP is in
 * test/http/idempotency.test.ts and test/pipeline/idempotent-effects.test.ts.
 */
describe('IdempotencyKeys: what is stored, replayed, expired and swept', () => {
  let database: TestDatabase;
  let services: Services;
  let clock: Date;
  let keys: IdempotencyKeys;
  let n = 0;

  before(async () => {
    database = await createTestDatabase();
    services = await createServices(loadConfig({ LOG_LEVEL: 'silent', BCRYPT_COST: '4' }), database.db);
  });
  after(async () => {
    await services.close();
    await database.drop();
  });
  beforeEach(async () => {
    await database.db.kysely.deleteFrom('idempotency_keys').execute();
    clock = new Date('2026-11-27T10:00:00.000Z');
    keys = new IdempotencyKeys(24 * HOUR, { now: () => clock });
  });

  const request = (overrides: Partial<KeyedRequest> = {}): KeyedRequest => ({
    accountId: 'acct_keys',
    clientId: 'cli_keys',
    operationId: 'approveOrder',
    key: `key-${++n}`,
    fingerprint: 'fingerprint-a',
    ...overrides,
  });
  /** A use case that counts its runs and answers `answer`. */
  const counted = (answer: Answer) => {
    const work = async () => {
      work.runs++;
      return answer;
    };
    work.runs = 0;
    return work;
  };
  const rows = () =>
    database.db.kysely.selectFrom('idempotency_keys').select(['key', 'status', 'headers', 'expires_at']).orderBy('key').execute();
  /** A stored answer written straight to the table, expiring at `expiresAt`. */
  const storedRow = (key: string, expiresAt: Date) =>
    database.db.kysely
      .insertInto('idempotency_keys')
      .values({
        account_id: 'acct_keys',
        client_id: 'cli_keys',
        operation_id: 'approveOrder',
        key,
        fingerprint: 'fingerprint-a',
        status: 200,
        headers: '{}',
        body: '{"stored":true}',
        content_type: 'application/json',
        created_at: new Date(expiresAt.getTime() - 24 * HOUR),
        expires_at: expiresAt,
      })
      .execute();

  for (const [what, status] of [
    ['a 429 (the caller was throttled)', 429],
    ['a 500 (the server failed)', 500],
    ['a 503', 503],
  ] as const) {
    it(`${what} is not stored: a retry with the key runs again, and neither answer is a replay`, async () => {
      const call = request();
      const work = counted({ status, body: { type: 'x' } });
      const first = await keys.run(services, call, work);
      const second = await keys.run(services, call, work);
      expect([first.replayed, second.replayed, work.runs]).to.deep.equal([false, false, 2]);
      expect(await rows()).to.deep.equal([]);

      const computation = counted({ status, body: { type: 'x' } });
      const computed = await keys.runComputation(services, call, computation);
      const again = await keys.runComputation(services, call, computation);
      expect([computed.replayed, again.replayed, computation.runs]).to.deep.equal([false, false, 2]);
      expect(await rows()).to.deep.equal([]);
    });
  }

  it('a final answer (2xx, 4xx) is stored once and replayed, on both paths; only the headers a replay repeats are kept', async () => {
    const call = request();
    const work = counted({
      status: 201,
      body: { id: 'ord_1' },
      headers: { Location: '/v1/orders/ord_1', ETag: '"v1"', 'Retry-After': '3', 'X-Request-Id': 'req_1', 'content-length': '14' },
    });
    const first = await keys.run(services, call, work);
    const replay = await keys.run(services, call, work);
    expect([first.replayed, replay.replayed, work.runs]).to.deep.equal([false, true, 1]);
    expect(replay.answer).to.deep.equal({
      status: 201,
      body: { id: 'ord_1' },
      contentType: 'application/json',
      headers: { Location: '/v1/orders/ord_1', ETag: '"v1"', 'Retry-After': '3' },
    });

    const computed = request({ operationId: 'evaluateGoal' });
    const computation = counted({ status: 422, body: { type: 'unreachable' } });
    const firstComputed = await keys.runComputation(services, computed, computation);
    const replayComputed = await keys.runComputation(services, computed, computation);
    expect([firstComputed.replayed, replayComputed.replayed, computation.runs]).to.deep.equal([false, true, 1]);
    expect(replayComputed.answer).to.deep.equal({
      status: 422,
      body: { type: 'unreachable' },
      contentType: 'application/json',
      headers: {},
    });
  });

  it('a key is new again at the very millisecond it expires (24 hours after its answer), not a millisecond before', async () => {
    const call = request();
    const work = counted({ status: 200, body: { n: 1 } });
    await keys.run(services, call, work);
    clock = new Date(clock.getTime() + 24 * HOUR - 1);
    expect((await keys.run(services, call, work)).replayed, 'a millisecond before').to.equal(true);
    clock = new Date(clock.getTime() + 1);
    expect((await keys.run(services, call, work)).replayed, 'at the expiry').to.equal(false);
    expect(work.runs).to.equal(2);

    const computed = request({ operationId: 'evaluateGoal' });
    const computation = counted({ status: 200, body: { p: 0.5 } });
    await keys.runComputation(services, computed, computation);
    clock = new Date(clock.getTime() + 24 * HOUR);
    expect((await keys.runComputation(services, computed, computation)).replayed, 'a computation at its expiry').to.equal(false);
    expect(computation.runs).to.equal(2);
  });

  it('two computations with one key: the one that stores second answers what the first stored, as a replay', async () => {
    const call = request({ operationId: 'evaluateGoal' });
    let inner: Answered | undefined;
    const outer = await keys.runComputation(services, call, async () => {
      // The other call with the same key starts and stores its answer while this one is still computing.
      inner = await keys.runComputation(services, call, async () => ({ status: 200, body: { p: 'first' } }));
      return { status: 200, body: { p: 'second' } };
    });
    expect(inner).to.deep.include({ replayed: false });
    expect(inner!.answer.body).to.deep.equal({ p: 'first' });
    expect(outer.replayed).to.equal(true);
    expect(outer.answer.body).to.deep.equal({ p: 'first' });
    const [row] = await database.db.kysely.selectFrom('idempotency_keys').select('body').execute();
    expect(row!.body).to.equal('{"p":"first"}');
  });

  it("a use case that swallowed a failed statement still gets its answer stored (the key's savepoint is rolled back, not the answer)", async () => {
    const call = request();
    const answered = await keys.run(services, call, async (bound) => {
      const problem = await bound
        .transaction(async (_, store) => {
          // A statement that fails and is caught leaves the transaction unusable until a rollback to a savepoint:
          // this use case's own savepoint then cannot be released either, and it fails after the fact.
          await sql`select 1 / 0`.execute(store.db).catch(() => undefined);
        })
        .then(
          () => undefined,
          () => 'failed',
        );
      return { status: 409, body: { problem } };
    });
    expect(answered).to.deep.equal({ answer: { status: 409, body: { problem: 'failed' } }, replayed: false });
    const stored = await rows();
    expect(stored.map((r) => [r.key, r.status])).to.deep.equal([[call.key, 409]]);
    expect((await keys.run(services, call, counted({ status: 200 }))).answer).to.deep.include({ status: 409, body: { problem: 'failed' } });
  });

  describe('the sweep of expired keys', () => {
    const keysLeft = async () => (await rows()).map((r) => r.key);

    it('runs after an answer is stored (either path) and deletes the keys expired by then, the one expiring that millisecond included', async () => {
      await storedRow('expired', new Date(clock.getTime() - 1));
      await storedRow('expiring-now', clock);
      await storedRow('live', new Date(clock.getTime() + 1)); // a millisecond later: kept
      const call = request({ operationId: 'evaluateGoal', key: 'computed' });
      await keys.runComputation(services, call, async () => ({ status: 200, body: {} }));
      await until('the sweep after a stored computation', async () => (await keysLeft()).join() === 'computed,live');

      clock = new Date(clock.getTime() + 60_000); // 'live' has expired by now too
      await keys.run(services, request({ key: 'run' }), async () => ({ status: 200, body: {} }));
      await until('the sweep after a stored answer, a minute later', async () => (await keysLeft()).join() === 'computed,run');
    });

    it('runs at most once a minute, and a failed sweep is tried again at the next stored answer', async () => {
      // Services whose transactions fail while `failing` is set (the database gone for a moment).
      let failing = false;
      let sweepsFailed = 0;
      const flaky: Services = {
        ...services,
        transaction: (work) => {
          if (failing) {
            sweepsFailed++;
            return Promise.reject(new Error('connection lost'));
          }
          return services.transaction(work);
        },
      };
      await keys.run(flaky, request({ key: 'a' }), async () => {
        failing = true; // the answer's own transaction is under way; the sweep after its commit fails
        return { status: 200, body: {} };
      });
      await until('the failed sweep', () => sweepsFailed === 1);
      failing = false;
      await storedRow('expired', new Date(clock.getTime() - 1));
      await keys.run(flaky, request({ key: 'b' }), async () => ({ status: 200, body: {} }));
      await until('the sweep tried again', async () => (await keysLeft()).join() === 'a,b');

      // That sweep ran: another within the same minute does not.
      await storedRow('expired-again', new Date(clock.getTime() - 1));
      await keys.run(flaky, request({ key: 'c' }), async () => ({ status: 200, body: {} }));
      clock = new Date(clock.getTime() + 59_999);
      await keys.run(flaky, request({ key: 'd' }), async () => ({ status: 200, body: {} }));
      // A later stored answer's sweep is the observable state to wait for: at one minute the next sweep runs.
      clock = new Date(clock.getTime() + 1);
      await storedRow('expired-later', new Date(clock.getTime() - 1));
      const before = await keysLeft();
      expect(before).to.include.members(['expired-again', 'expired-later']);
      await keys.run(flaky, request({ key: 'e' }), async () => ({ status: 200, body: {} }));
      await until('the sweep a minute after the last', async () => (await keysLeft()).join() === 'a,b,c,d,e');
    });
  });
});
