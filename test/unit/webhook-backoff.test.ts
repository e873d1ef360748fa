// Fair delivery, bounded (issue 34, point 2): an endpoint whose attempts keep going unanswered backs off — after 3 in a
// row it waits 1 minute, doubling with each further one up to an hour — while other endpoints are claimed as before;
// any answer, "Retry now" or enabling it ends the pause. And the claim reads what it takes, not the backlog: 1,500 due
// deliveries at one endpoint, beside 1,500 made, cost it a few rows (it ranked all 1,500 before).
import { expect } from 'chai';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { newId } from '../../src/ids.js';
import { eventRows } from '../../src/services/events/outbox.js';
import { Store } from '../../src/services/store.js';
import { WebhookEndpoints } from '../../src/services/webhooks/endpoints.js';
import { claim, deliveryId, type Claimed } from '../../src/services/webhooks/queue.js';
import { settle, type AttemptOutcome } from '../../src/services/webhooks/settle.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const T0 = new Date('2026-11-29T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
/** Every retry due again at once: what is tested here is the endpoint's pause, not the delivery's schedule. */
const NO_WAIT = Array.from({ length: 10 }, () => 0);

describe('webhook endpoints that keep timing out back off; the claim reads what it takes', () => {
  let database: TestDatabase;
  let db: Kysely<Database>;
  before(async () => {
    database = await createTestDatabase();
    db = database.db.kysely;
  });
  after(() => database.drop());

  /** An account with one endpoint and `due` deliveries due at T0. */
  const tenant = async (due: number) => {
    const accountId = newId('acct');
    await db
      .insertInto('accounts')
      .values({ id: accountId, email: `${accountId}@example.com`, name: 'Tenant', password_hash: null })
      .execute();
    const endpointId = newId('we');
    await db
      .insertInto('webhook_endpoints')
      .values({
        id: endpointId,
        account_id: accountId,
        url: 'https://receiver.example/hook',
        description: '',
        event_types: JSON.stringify(['order.filled']),
        secret: 'whsec_test',
        enabled: true,
        created_at: T0,
        updated_at: T0,
      })
      .execute();
    await deliveries(accountId, endpointId, due);
    return { accountId, endpointId };
  };
  const deliveries = async (accountId: string, endpointId: string, count: number) => {
    const events = eventRows(
      Array.from({ length: count }, () => ({ accountId, type: 'order.filled' as const, at: T0, data: {} })),
      undefined,
    );
    for (let i = 0; i < events.length; i += 500) {
      const chunk = events.slice(i, i + 500);
      await db.insertInto('events').values(chunk).execute();
      await db
        .insertInto('webhook_deliveries')
        .values(
          chunk.map((event) => ({
            id: deliveryId(),
            endpoint_id: endpointId,
            event_id: event.id,
            account_id: accountId,
            status: 'pending' as const,
            next_attempt_at: T0,
            created_at: T0,
            updated_at: T0,
          })),
        )
        .execute();
    }
  };
  const outcome = (delivery: Claimed, when: Date, answer: 'timeout' | 'refused' | number): AttemptOutcome => ({
    delivery,
    at: when,
    statusCode: typeof answer === 'number' ? answer : null,
    latencyMs: 5,
    error: typeof answer === 'number' ? null : answer === 'timeout' ? 'no answer within 10 s' : 'connection refused',
    responseBody: null,
    ...(answer === 'timeout' ? { timedOut: true } : {}),
  });
  const endpointState = (id: string) =>
    db.selectFrom('webhook_endpoints').select(['timeouts', 'paused_until']).where('id', '=', id).executeTakeFirstOrThrow();
  const claimedAt = async (seconds: number) => {
    const claimed = await claim(db, at(seconds), 10, { perEndpoint: 2, perAccount: 8 });
    return { claimed, of: (endpointId: string) => claimed.filter((d) => d.endpoint_id === endpointId) };
  };

  it('pauses an endpoint after 3 attempts in a row without an answer, 1 minute then doubling; others go on meanwhile', async () => {
    const slow = await tenant(6);
    const other = await tenant(0);
    // Two attempts without an answer: counted, not paused yet; a refused connection neither counts nor resets.
    const first = await claimedAt(0);
    expect(first.of(slow.endpointId)).to.have.length(2);
    await settle(db, [outcome(first.claimed[0]!, at(10), 'timeout'), outcome(first.claimed[1]!, at(10), 'refused')], NO_WAIT, at(10));
    expect(await endpointState(slow.endpointId)).to.deep.equal({ timeouts: 1, paused_until: null });
    const second = await claimedAt(11);
    await settle(db, [outcome(second.claimed[0]!, at(21), 'timeout')], NO_WAIT, at(21));
    expect((await endpointState(slow.endpointId)).timeouts).to.equal(2);
    // The third in a row: paused for a minute from when its result was written.
    await settle(db, [outcome(second.claimed[1]!, at(22), 'timeout')], NO_WAIT, at(22));
    expect(await endpointState(slow.endpointId)).to.deep.equal({ timeouts: 3, paused_until: at(82) });
    await deliveries(other.accountId, other.endpointId, 1);
    const paused = await claimedAt(81);
    expect(paused.of(slow.endpointId)).to.deep.equal([]);
    expect(paused.of(other.endpointId)).to.have.length(1);
    await settle(db, [outcome(paused.claimed[0]!, at(81), 204)], NO_WAIT, at(81));
    // Once the pause is over, the endpoint gets its share again; a fourth time without an answer pauses it 2 minutes.
    const resumed = await claimedAt(82);
    expect(resumed.of(slow.endpointId)).to.have.length(2);
    await settle(db, [outcome(resumed.claimed[0]!, at(92), 'timeout')], NO_WAIT, at(92));
    expect(await endpointState(slow.endpointId)).to.deep.equal({ timeouts: 4, paused_until: at(212) });
    expect((await claimedAt(211)).claimed).to.deep.equal([]);
    // Any answer ends it, an error status too: the attempt still in flight answers 500.
    await settle(db, [outcome(resumed.claimed[1]!, at(93), 500)], NO_WAIT, at(93));
    expect(await endpointState(slow.endpointId)).to.deep.equal({ timeouts: 0, paused_until: null });
    expect((await claimedAt(94)).of(slow.endpointId)).to.have.length(2);
  });

  it('counts every unanswered attempt of a batch, doubles up to an hour, and a success in the batch ends it', async () => {
    const slow = await tenant(4);
    const [d1, d2] = (await claimedAt(0)).claimed;
    await db.updateTable('webhook_endpoints').set({ timeouts: 2 }).where('id', '=', slow.endpointId).execute();
    // Two in one batch: 2 + 2 = 4 in a row, the pause of the fourth (2 minutes).
    await settle(db, [outcome(d1!, at(10), 'timeout'), outcome(d2!, at(10), 'timeout')], NO_WAIT, at(10));
    expect(await endpointState(slow.endpointId)).to.deep.equal({ timeouts: 4, paused_until: at(130) });
    // 1, 2, 4, … minutes: the ninth would be 64, an hour at most.
    await db.updateTable('webhook_endpoints').set({ timeouts: 8, paused_until: null }).where('id', '=', slow.endpointId).execute();
    const [d3, d4] = (await claimedAt(11)).claimed;
    await settle(db, [outcome(d3!, at(20), 'timeout')], NO_WAIT, at(20));
    expect(await endpointState(slow.endpointId)).to.deep.equal({ timeouts: 9, paused_until: at(20 + 3600) });
    // A success in the same batch as an unanswered attempt ends the run: the endpoint answers.
    await db.updateTable('webhook_endpoints').set({ paused_until: null }).where('id', '=', slow.endpointId).execute();
    const [next] = (await claimedAt(21)).claimed; // d4 still in flight: one place left
    await settle(db, [outcome(d4!, at(30), 'timeout'), outcome(next!, at(30), 204)], NO_WAIT, at(30));
    expect(await endpointState(slow.endpointId)).to.deep.equal({ timeouts: 0, paused_until: null });
  });

  it('"Retry now" ends the pause (the count stays), and so does enabling the endpoint', async () => {
    const slow = await tenant(1);
    const endpoints = new WebhookEndpoints(new Store(db), { now: () => at(30) }, { allowPrivateNetworks: true, retentionDays: 30 });
    await db
      .updateTable('webhook_endpoints')
      .set({ timeouts: 3, paused_until: at(60) })
      .where('id', '=', slow.endpointId)
      .execute();
    expect((await endpoints.get('operator', slow.endpointId)).paused_until).to.equal(at(60).toISOString());
    const [delivery] = await db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', slow.endpointId).execute();
    await endpoints.retry({ accountId: slow.accountId }, slow.endpointId, delivery!.id);
    expect(await endpointState(slow.endpointId)).to.deep.equal({ timeouts: 3, paused_until: null });
    expect((await claimedAt(30)).of(slow.endpointId)).to.have.length(1);
    await db
      .updateTable('webhook_endpoints')
      .set({ paused_until: at(90) })
      .where('id', '=', slow.endpointId)
      .execute();
    await endpoints.setEnabled('operator', slow.endpointId, true);
    expect(await endpointState(slow.endpointId)).to.deep.equal({ timeouts: 0, paused_until: null });
    // Past its time a pause is not shown.
    await db
      .updateTable('webhook_endpoints')
      .set({ paused_until: at(20) })
      .where('id', '=', slow.endpointId)
      .execute();
    expect((await endpoints.get('operator', slow.endpointId)).paused_until).to.equal(null);
  });

  it('settles each delivery by its answer: 2xx ends it, a 300 is a failure retried after its delay, the last attempt fails for good', async () => {
    const endpoint = await tenant(4);
    const schedule = [5_000, 60_000];
    const deliveryState = (id: string) =>
      db
        .selectFrom('webhook_deliveries')
        .select(['status', 'next_attempt_at', 'last_status_code'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const [ok, moved] = (await claimedAt(0)).claimed;
    // One success and one failure at the endpoint in one batch: it answers, so no failing streak starts.
    await settle(db, [outcome(ok!, at(1), 204), { ...outcome(moved!, at(1), 300), latencyMs: 500 }], schedule, at(2));
    expect(await deliveryState(ok!.id)).to.deep.equal({ status: 'succeeded', next_attempt_at: null, last_status_code: 204 });
    // The first attempt's failure waits the first delay, counted from when its answer came.
    expect(await deliveryState(moved!.id)).to.deep.equal({
      status: 'pending',
      next_attempt_at: new Date(at(1).getTime() + 500 + 5_000),
      last_status_code: 300,
    });
    const row = await db
      .selectFrom('webhook_endpoints')
      .select('failing_since')
      .where('id', '=', endpoint.endpointId)
      .executeTakeFirstOrThrow();
    expect(row.failing_since).to.equal(null);
    // Past the schedule (attempt 3 of a schedule of two retries) the delivery has failed for good.
    await db.updateTable('webhook_deliveries').set({ attempts: 3 }).where('id', '=', moved!.id).execute();
    await settle(db, [{ ...outcome(moved!, at(70), 500), delivery: { ...moved!, attempt: 3 } }], schedule, at(70));
    expect(await deliveryState(moved!.id)).to.deep.equal({ status: 'failed', next_attempt_at: null, last_status_code: 500 });
  });

  it('reads a few rows to claim, not the backlog: 1,500 due at one endpoint, 1,500 made at another', async () => {
    await db.deleteFrom('webhook_deliveries').execute();
    // A history of 1,500 deliveries made (what the retention keeps), then a backlog of 1,500 due at one endpoint.
    const history = await tenant(1500);
    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'succeeded', next_attempt_at: null })
      .where('endpoint_id', '=', history.endpointId)
      .execute();
    const flooded = await tenant(1500);
    const other = await tenant(1);
    await sql`analyze webhook_deliveries`.execute(db);
    const read = await db.transaction().execute(async (trx) => {
      // Rows of the table read so far by this session (a difference: the counts may hold earlier transactions' too).
      const rows = async () => {
        const stats = await sql<{ rows: string }>`
          select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text as rows
          from pg_stat_xact_user_tables where relname = 'webhook_deliveries'`.execute(trx);
        return Number(stats.rows[0]!.rows);
      };
      const before = await rows();
      const claimed = await claim(trx, at(0), 10, { perEndpoint: 2, perAccount: 8 });
      expect(claimed.map((d) => d.endpoint_id).sort()).to.deep.equal([flooded.endpointId, flooded.endpointId, other.endpointId].sort());
      return (await rows()) - before;
    });
    expect(read).to.be.below(60);
  });
});
