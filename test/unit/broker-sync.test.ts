// Sending approved orders, applying what the broker says and keeping connected accounts in step (sender.ts, apply.ts,
// sync.ts), against a broker port of the test's own on a database, at a clock the test moves: every wait and deadline
// in exact instants, without the stand-in's network or the server's timers.
import { expect } from 'chai';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { BrokerError, type BrokerPort } from '../../src/brokers/port.js';
import { BrokerSync, type SyncLog } from '../../src/services/brokerage/sync.js';
import type { ServiceContext } from '../../src/services/context.js';
import type { Database } from '../../db/schema.js';
import { dec } from '../../src/services/money.js';
import { Store } from '../../src/services/store.js';
import { brokerOrder, filled, FakeBroker, SENT_AT, syncFixture } from '../support/broker-fixture.js';
import { until } from '../support/poll.js';

describe('connected accounts against a broker port of their own: sending, applying, reconciling', () => {
  const f = syncFixture();
  let ctx: ServiceContext;
  let port: FakeBroker;
  let ports: Map<string, BrokerPort>;
  let account: string;
  beforeEach(() => ({ ctx, port, ports, account } = f));
  const { clock, db, approved, sent, row, fillsOf, at } = f;

  describe('BrokerSync', () => {
    const connection = () => db().selectFrom('broker_connections').selectAll().where('account_id', '=', account).executeTakeFirstOrThrow();

    it('reconciles: sends what is due, applies what the broker holds once, and says when the books last matched or how they differed', async () => {
      const due = await approved();
      const held = await sent();
      port.held.set(held, filled(held));
      // After the fill the books hold 340.00 and 10 BND, 2 VTI: what the broker states.
      port.cash = '340.00';
      port.stated = [
        { symbol: 'BND', quantity: dec('10'), averageCost: dec('72'), lastPrice: null },
        { symbol: 'VTI', quantity: dec('2'), averageCost: dec('330'), lastPrice: null },
      ];
      const sync = new BrokerSync(ctx, ctx.brokers);
      await sync.reconcile(account, port);
      expect(port.submits.map((s) => s.clientOrderId)).to.deep.equal([due]);
      expect((await row(held)).status).to.equal('filled');
      expect(await connection()).to.deep.include({ mirror_read_at: at(0), mirror_matched_at: at(0), mirror_drift: null });
      await sync.reconcile(account, port);
      expect(await fillsOf(held)).to.have.length(1);
      expect(port.submits).to.have.length(1);

      clock.advance(60_000);
      port.cash = '300.00';
      await sync.reconcile(account, port);
      const after = await connection();
      expect([after.mirror_read_at, after.mirror_matched_at]).to.deep.equal([at(60_000), at(0)]);
      expect(after.mirror_drift).to.deep.equal({
        at: at(60_000).toISOString(),
        cash: { books: '340.00', broker: '300.00' },
        positions: [],
      });
    });

    it('polls with one list of the open orders, asking for an order on its own only once the broker no longer lists it', async () => {
      const sync = new BrokerSync(ctx, ctx.brokers);
      await sync.reconcile(account, port);
      expect([port.lists, port.lookups]).to.deep.equal([0, []]);
      const resting = await sent();
      const done = await sent();
      const part = {
        status: 'partially_filled' as const,
        brokerStatus: 'partially_filled',
        filledQuantity: dec('1'),
        averageFillPrice: dec('330'),
      };
      port.held.set(resting, brokerOrder(resting, part));
      port.held.set(done, filled(done, '331'));
      await sync.reconcile(account, port);
      expect([port.lists, port.lookups]).to.deep.equal([1, [done]]);
      expect([(await row(resting)).status, (await row(resting)).filled_quantity]).to.deep.equal(['partially_filled', '1.000000']);
      expect([(await row(done)).status, (await row(done)).fill_price]).to.deep.equal(['filled', '331.000000']);
    });

    it('streams each account it holds the lease of, once, and gives the stream up when another instance takes the lease', async () => {
      const one = new BrokerSync(ctx, ctx.brokers);
      const two = new BrokerSync(ctx, ctx.brokers);
      await one.sweep();
      await one.sweep();
      expect([port.listeners.length, port.closed]).to.deep.equal([1, 0]);
      await two.sweep();
      expect(port.listeners.length, 'the lease is held').to.equal(1);
      expect((await connection()).stream_lease_until).to.deep.equal(at(90_000));
      clock.set(at(90_001).toISOString());
      await two.sweep();
      expect(port.listeners.length, 'the lease lapsed: the other instance streams').to.equal(2);
      await one.sweep();
      expect(port.closed, 'the first instance closed its own').to.equal(1);
      // The account's keys changed (another port): the stream of the old one is closed, one of the new opened.
      const renewed = new FakeBroker();
      ports.set(account, renewed);
      await two.sweep();
      expect([port.closed, renewed.listeners.length]).to.deep.equal([2, 1]);
      await two.stop();
      expect([renewed.closed, (await connection()).stream_owner]).to.deep.equal([1, null]);
      // The lease handed back, the first instance takes the account again (its keys as at first): a stream of its own again.
      ports.set(account, port);
      await one.sweep();
      expect([port.listeners.length, port.closed]).to.deep.equal([3, 2]);
      // Stopped and started again (as after a restart of its sweeps), it opens the stream again.
      await one.stop();
      await one.sweep();
      expect([port.listeners.length, port.closed]).to.deep.equal([4, 3]);
      await one.stop();
      expect((await connection()).stream_owner).to.equal(null);
    });

    it('applies what the stream says, refreshing the books after an execution that moved the order only', async () => {
      const id = await sent();
      const sync = new BrokerSync(ctx, ctx.brokers);
      await sync.sweep();
      const [listener] = port.listeners;
      const reads = port.reads;
      const partial = brokerOrder(id, {
        status: 'partially_filled',
        brokerStatus: 'partially_filled',
        filledQuantity: dec('1'),
        averageFillPrice: dec('330'),
      });
      const execution = { quantity: dec('1'), price: dec('330') };
      listener!.update({ event: 'partial_fill', order: partial, at: SENT_AT, execution });
      await until('the partial fill', async () => (await row(id)).status === 'partially_filled');
      await until('the books refreshed', () => port.reads === reads + 1);
      // The same execution again (the stream repeats), then a word that moves nothing: no refresh.
      listener!.update({ event: 'partial_fill', order: { ...partial, brokerStatus: 'held' }, at: SENT_AT, execution });
      await until('the repeat applied', async () => (await row(id)).broker_status === 'held');
      listener!.update({ event: 'canceled', order: { ...partial, status: 'canceled', brokerStatus: 'canceled' }, at: SENT_AT });
      await until('the cancellation', async () => (await row(id)).status === 'cancelled');
      expect(port.reads).to.equal(reads + 1);
      expect(await fillsOf(id)).to.have.length(1);
    });

    it('polls the orders again when the stream listens again', async () => {
      const id = await sent();
      const sync = new BrokerSync(ctx, ctx.brokers);
      await sync.sweep();
      port.held.set(id, filled(id));
      port.listeners[0]!.listening();
      await until('the poll', async () => (await row(id)).status === 'filled');
    });

    it('sweeps at once when started, logs what fails with the account it concerns, and hands the leases back when stopped', async () => {
      const warnings: [Record<string, unknown>, string][] = [];
      const log: SyncLog = { warn: (fields, message) => warnings.push([fields, message]) };
      const failing = new BrokerError('unavailable', 'Alpaca did not answer (order, HTTP 503).', 503);
      await sent();
      port.failLookups = failing;
      const sync = new BrokerSync(ctx, ctx.brokers);
      sync.start(3_600_000, log);
      await until('the first sweep', () => port.listeners.length === 1 && warnings.length === 1);
      expect(warnings[0]).to.deep.equal([{ err: failing, account_id: account }, 'broker reconcile failed']);
      port.listeners[0]!.dropped('the trade-updates stream closed');
      expect(warnings[1]).to.deep.equal([
        { account_id: account, reason: 'the trade-updates stream closed' },
        'trade updates dropped; reconnecting',
      ]);
      port.listeners[0]!.listening();
      await until('the reconcile after listening', () => warnings.length === 3);
      expect(warnings[2]).to.deep.equal([{ err: failing, account_id: account }, 'broker reconcile failed']);
      port.failLookups = undefined;
      const moving = await sent();
      port.failReads = new BrokerError('unavailable', 'Alpaca did not answer (the account, HTTP 503).', 503);
      port.listeners[0]!.update({
        event: 'fill',
        order: filled(moving),
        at: SENT_AT,
        execution: { quantity: dec('2'), price: dec('330') },
      });
      await until('the update', () => warnings.length === 4);
      expect(warnings[3]).to.deep.equal([{ err: port.failReads, account_id: account }, 'trade update not applied']);
      await sync.stop();
      expect([port.closed, (await connection()).stream_owner, (await connection()).stream_lease_until]).to.deep.equal([1, null, null]);

      const broken = new Error('the directory failed');
      const failingSync = new BrokerSync(ctx, { portFor: () => Promise.reject(broken) });
      failingSync.start(3_600_000, log);
      await until('the failed sweep', () => warnings.length === 5);
      expect(warnings[4]).to.deep.equal([{ err: broken }, 'broker sweep failed']);
      await failingSync.stop();
    });

    it('logs a sweep and a hand-back of its leases that the database refused', async () => {
      const warnings: [Record<string, unknown>, string][] = [];
      const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/unreachable', connectionTimeoutMillis: 2_000 });
      const unreachable = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      try {
        const sync = new BrokerSync({ ...ctx, store: new Store(unreachable) }, ctx.brokers);
        sync.start(3_600_000, { warn: (fields, message) => warnings.push([fields, message]) });
        await until('the failed sweep', () => warnings.length === 1);
        await sync.stop();
        expect(warnings.map(([fields, message]) => [Object.keys(fields), message])).to.deep.equal([
          [['err'], 'broker sweep failed'],
          [['err'], 'broker leases not handed back'],
        ]);
      } finally {
        await unreachable.destroy();
      }
    });
  });
});
