import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { GuardedRedis } from '../../src/counters/guarded-redis.js';
import { MemoryRecentKeys, MemoryWindowCounter, RedisRecentKeys, RedisWindowCounter } from '../../src/counters/window-counters.js';
import { ownRedisUnavailable, startOwnRedis, type OwnRedis } from '../support/redis-server.js';
import { until } from '../support/poll.js';

/** The shared counters the limits (and later budgets) count in: the same answers in memory and in Redis. */
describe('window counters', () => {
  describe('in memory, on a pinned clock', () => {
    let now = 1_000_000;
    const clock = () => now;

    it('adds whole amounts per key within a window, and starts again from 0 when it ends', async () => {
      const counter = new MemoryWindowCounter(60_000, 100, clock);
      expect(await counter.get('a')).to.deep.equal({ total: 0, resetTime: new Date(now + 60_000) });
      expect(await counter.add('a', 250)).to.deep.equal({ total: 250, resetTime: new Date(now + 60_000) });
      now += 59_999;
      expect(await counter.add('a')).to.deep.include({ total: 251 });
      expect((await counter.get('b')).total).to.equal(0);
      now += 1;
      expect((await counter.get('a')).total).to.equal(0);
      expect(await counter.add('a', 3)).to.deep.equal({ total: 3, resetTime: new Date(now + 60_000) });
    });

    it('starts a key again from the first add after its window ended, with no read in between', async () => {
      const counter = new MemoryWindowCounter(60_000, 100, clock);
      await counter.add('a', 5);
      now += 60_000;
      expect(await counter.add('a', 2)).to.deep.equal({ total: 2, resetTime: new Date(now + 60_000) });
    });

    it('holds at most its number of keys, dropping the oldest window first', async () => {
      const counter = new MemoryWindowCounter(60_000, 3, clock);
      for (const key of ['a', 'b', 'c']) {
        await counter.add(key);
        now += 1;
      }
      await counter.add('d');
      expect((await counter.get('a')).total, 'the oldest is dropped').to.equal(0);
      expect((await counter.get('b')).total).to.equal(1);
      expect((await counter.get('d')).total).to.equal(1);
    });

    it('refuses an amount that is not a whole number of at least 1', async () => {
      const counter = new MemoryWindowCounter(60_000, 3, clock);
      for (const amount of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        let error: unknown;
        await counter.add('a', amount).catch((e: unknown) => (error = e));
        expect(error, String(amount)).to.be.instanceOf(RangeError);
      }
    });

    it('remembers keys for their time after each mark, at most its number of keys', async () => {
      const recent = new MemoryRecentKeys(1000, 2, clock);
      await recent.mark('a');
      now += 999;
      expect(await recent.has('a')).to.equal(true);
      await recent.mark('a');
      now += 999;
      expect(await recent.has('a'), 'a mark restarts the time').to.equal(true);
      now += 1;
      expect(await recent.has('a')).to.equal(false);
      await recent.mark('x');
      await recent.mark('y');
      await recent.mark('z');
      expect([await recent.has('x'), await recent.has('y'), await recent.has('z')]).to.deep.equal([false, true, true]);
    });
  });

  describe('in Redis of their own, through the guarded connection', () => {
    let redis: OwnRedis;
    let guarded: GuardedRedis;
    const prefix = `test:${randomBytes(4).toString('hex')}:`;

    before(async function () {
      if (ownRedisUnavailable()) this.skip();
      redis = await startOwnRedis();
      guarded = new GuardedRedis({
        url: redis.url,
        commandTimeoutMs: 100,
        breakerMs: 500,
        logger: pino({ level: 'silent' }),
        label: 'test Redis',
      });
      await until('a connection to the test Redis', () => guarded.state() === 'ok', { attempts: 100, intervalMs: 20 });
    });
    after(async () => {
      await guarded?.close();
      await redis?.kill();
    });

    it('adds whole amounts, shares them between counters of one name, and keeps the window of the first count', async () => {
      const one = new RedisWindowCounter(guarded, prefix, 60_000);
      // Another instance's counter of the same name; its shorter window shows whether a count restarts the window.
      const other = new RedisWindowCounter(guarded, prefix, 1000);
      expect((await one.get('k'))!.total).to.equal(0);
      expect((await one.add('k', 250))!.total).to.equal(250);
      expect((await other.add('k', 5))!.total).to.equal(255);
      expect((await other.get('k'))!.total).to.equal(255);
      expect(await guarded.command<number>(['PTTL', `${prefix}k`])).to.be.within(1001, 60_000);
    });

    it('sends its script again when Redis has forgotten it', async () => {
      const counter = new RedisWindowCounter(guarded, `${prefix}flush:`, 60_000);
      await counter.add('k');
      await guarded.command(['SCRIPT', 'FLUSH']);
      expect((await counter.add('k'))!.total).to.equal(2);
      expect((await counter.get('k'))!.total).to.equal(2);
    });

    it('remembers marked keys until their time runs out', async () => {
      const recent = new RedisRecentKeys(guarded, prefix, 60_000);
      expect(await recent.has('seen')).to.equal(false);
      await recent.mark('seen');
      expect(await recent.has('seen')).to.equal(true);
      expect(await guarded.command<number>(['PTTL', `${prefix}seen`])).to.be.within(1, 60_000);
    });

    it('answers undefined rather than waiting while Redis is frozen, and opens the breaker', async () => {
      const counter = new RedisWindowCounter(guarded, prefix, 60_000);
      const recent = new RedisRecentKeys(guarded, prefix, 60_000);
      redis.freeze();
      try {
        for (let i = 0; i < 4; i++) expect(await counter.add('k'), `add ${i + 1}`).to.equal(undefined);
        expect(await recent.has('seen')).to.equal(undefined);
        expect(guarded.state()).to.equal('fail');
        let refused: unknown;
        await guarded.command(['PING']).catch((error: unknown) => (refused = error));
        expect(refused).to.have.property('name', 'RedisUnavailableError');
      } finally {
        redis.thaw();
      }
      await until('the breaker to close after SIGCONT', () => guarded.state() === 'ok', { attempts: 200, intervalMs: 20 });
      expect((await counter.get('k'))!.total).to.be.at.least(255);
    });
  });
});
