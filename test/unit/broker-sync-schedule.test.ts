// When BrokerSync acts (sync.ts): an account that trades is sent what is due at once, streamed if it was not; the
// schedule sweeps again; another instance's accounts are polled only at start; a stopped sync does nothing more. On
// a broker port of the test's own (test/support/broker-fixture.ts).
import { expect } from 'chai';
import type { BrokerPort } from '../../src/brokers/port.js';
import type { BrokerDirectory } from '../../src/services/brokerage/directory.js';
import { BrokerSync, type SyncLog } from '../../src/services/brokerage/sync.js';
import type { ServiceContext } from '../../src/services/context.js';
import { filled, type FakeBroker, syncFixture } from '../support/broker-fixture.js';
import { until } from '../support/poll.js';

describe('when the broker sync acts', () => {
  const f = syncFixture();
  let ctx: ServiceContext;
  let port: FakeBroker;
  let account: string;
  beforeEach(() => ({ ctx, port, account } = f));
  const { db, approved, sent, row } = f;

  const warnings: [Record<string, unknown>, string][] = [];
  const log: SyncLog = { warn: (fields, message) => warnings.push([fields, message]) };
  beforeEach(() => (warnings.length = 0));

  /** The directory, noting each account it is asked for. */
  const noting = (asked: string[]): BrokerDirectory => ({
    portFor: (id: string): Promise<BrokerPort | undefined> => {
      asked.push(id);
      return ctx.brokers.portFor(id);
    },
  });
  /** Another instance holds the account's stream for the next hour. */
  const leasedElsewhere = (id: string) =>
    db()
      .updateTable('broker_connections')
      .set({ stream_owner: 'sync_elsewhere', stream_lease_until: f.at(3_600_000) })
      .where('account_id', '=', id)
      .execute();

  it('sends what is due at once when an account trades, and streams it then if it did not yet; nothing before it starts or once it stopped', async () => {
    const asked: string[] = [];
    const sync = new BrokerSync(ctx, noting(asked));
    const due = await approved();
    sync.watch(account);
    expect(asked, 'not started').to.deep.equal([]);
    sync.start(3_600_000, log);
    await until('the first sweep', () => port.listeners.length === 1);
    await sync.idle();
    expect(port.submits.map((s) => s.clientOrderId)).to.deep.equal([due]);

    const next = await approved();
    asked.length = 0;
    sync.watch(account);
    expect(asked).to.deep.equal([account]);
    await until('the send', () => port.submits.length === 2);
    expect(port.submits[1]!.clientOrderId).to.equal(next);
    await sync.idle();
    expect(asked, 'streamed already: no sweep').to.deep.equal([account]);

    const other = await f.openAccount();
    sync.watch(other);
    await until('the stream of the other account', () => port.listeners.length === 2);
    await sync.idle();

    await sync.stop();
    asked.length = 0;
    await approved();
    sync.watch(account);
    expect(asked, 'stopped').to.deep.equal([]);
    expect(warnings).to.deep.equal([]);
  });

  it('logs a send it could not make, with the account', async () => {
    const broken = new Error('the directory failed');
    const sync = new BrokerSync(ctx, { portFor: () => Promise.reject(broken) });
    sync.start(3_600_000, log);
    await sync.idle();
    sync.watch(account);
    await until('the warning', () => warnings.some(([, message]) => message === 'broker send failed'));
    expect(warnings.find(([, message]) => message === 'broker send failed')).to.deep.equal([
      { err: broken, account_id: account },
      'broker send failed',
    ]);
    await sync.stop();
  });

  it('sweeps again on its schedule, polling only the accounts it streams', async () => {
    const other = await f.openAccount();
    await leasedElsewhere(other);
    const sync = new BrokerSync(ctx, ctx.brokers);
    sync.start(20, log);
    await until('the first sweep', () => port.listeners.length === 1);
    await sync.idle();
    const theirs = await sent({ account_id: other });
    port.held.set(theirs, filled(theirs));
    for (const round of [1, 2]) {
      const mine = await sent();
      port.held.set(mine, filled(mine));
      await until(`sweep ${round}`, async () => (await row(mine)).status === 'filled');
    }
    await sync.stop();
    expect((await row(theirs)).status, 'another instance streams it').to.equal('submitted');
    expect(port.listeners.length).to.equal(1);
  });

  it('polls every account when it starts, streaming only those it holds', async () => {
    const other = await f.openAccount();
    await leasedElsewhere(other);
    const theirs = await sent({ account_id: other });
    port.held.set(theirs, filled(theirs));
    const sync = new BrokerSync(ctx, ctx.brokers);
    await sync.sweep();
    expect((await row(theirs)).status, 'a sweep on schedule').to.equal('submitted');
    expect(port.listeners.length).to.equal(1);
    await sync.sweep(true);
    expect((await row(theirs)).status, 'the sweep at start').to.equal('filled');
    expect(port.listeners.length, 'streamed by the other instance').to.equal(1);
    await sync.stop();
  });

  it('is idle, and stops, only once the sweep running has ended', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const read = port.account.bind(port);
    let reading = false;
    port.account = async () => {
      reading = true;
      await gate;
      return read();
    };
    const sync = new BrokerSync(ctx, ctx.brokers);
    sync.start(3_600_000, log);
    await until('the sweep reading the books', () => reading);
    let idle = false;
    void sync.idle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle, 'the sweep waits for the broker').to.equal(false);
    const stopping = sync.stop();
    release();
    await stopping;
    expect(idle).to.equal(true);
    const connection = await db().selectFrom('broker_connections').selectAll().where('account_id', '=', account).executeTakeFirstOrThrow();
    expect([connection.mirror_read_at, connection.stream_owner]).to.deep.equal([f.at(0), null]);
  });
});
