// Keeping connected accounts in step with their brokers: a trade-updates stream per account, held by one instance at a
// time (a lease in broker_connections) and reconnecting with backoff, and a sweep on start, after every (re)connection
// of a stream and on a schedule that sends what is due, polls the account's orders at the broker (one list of its open
// orders, and a lookup of each order it no longer lists: so a fill made while the stream or the service was down is
// applied — once: progress.ts books only what the broker's cumulative figures add) and refreshes the books.
import { randomUUID } from 'node:crypto';
import type { BrokerPort, UpdateStream } from '../../brokers/port.js';
import type { ServiceContext } from '../context.js';
import { effectiveKillSwitch } from '../kill-switch.js';
import { lockPaperAccount } from '../ledger.js';
import { AT_BROKER } from './progress.js';
import { applyBrokerOrder } from './apply.js';
import { brokerName, type BrokerDirectory } from './directory.js';
import { haltAtBroker } from './halt.js';
import { mirrorBooks } from './mirror.js';
import { BrokerSender } from './sender.js';

export interface SyncLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export class BrokerSync {
  private readonly streams = new Map<string, { port: BrokerPort; stream: UpdateStream }>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly sender: BrokerSender;

  private log: SyncLog = { warn: () => undefined };
  /** This instance, as the owner of the streams it holds. */
  private readonly instance = `sync_${randomUUID()}`;
  /** How long a lease lasts: three sweeps, renewed at each. */
  private leaseMs = 90_000;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly accounts: BrokerDirectory,
  ) {
    this.sender = new BrokerSender(ctx);
  }

  /** The first sweep now, then one every `intervalMs`. */
  start(intervalMs: number, log: SyncLog): void {
    this.log = log;
    this.leaseMs = 3 * intervalMs;
    this.tick(true);
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  /** A sweep now, unless one is running. */
  private tick(everyAccount = false): void {
    this.running ??= this.sweep(everyAccount)
      .catch((error: unknown) => this.log.warn({ err: error }, 'broker sweep failed'))
      .finally(() => (this.running = undefined));
  }

  /**
   * An account just connected or traded: what is due is sent now, and the account is streamed now if this instance
   * does not stream it yet (once started).
   */
  watch(accountId: string): void {
    if (!this.timer) return;
    void this.sendDue(accountId).catch((error: unknown) => this.log.warn({ err: error, account_id: accountId }, 'broker send failed'));
    if (!this.streams.has(accountId)) this.tick();
  }

  private async sendDue(accountId: string): Promise<void> {
    const port = await this.accounts.portFor(accountId);
    if (!port) return;
    for (const orderId of await this.sender.due(accountId)) await this.sender.attempt(accountId, orderId, port);
  }

  /** Once the sweep running now (if any) has ended. */
  async idle(): Promise<void> {
    await this.running;
  }

  /**
   * Closes the streams and hands the accounts back: another instance takes them at its next sweep. Stopped, it sends
   * and sweeps nothing more (an account that trades meanwhile is watched by no one here) until started again.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.idle();
    for (const { stream } of this.streams.values()) stream.close();
    this.streams.clear();
    await this.ctx.store.db
      .updateTable('broker_connections')
      .set({ stream_owner: null, stream_lease_until: null })
      .where('stream_owner', '=', this.instance)
      .execute()
      .catch((error: unknown) => this.log.warn({ err: error }, 'broker leases not handed back'));
  }

  /**
   * Every connected account this instance holds the lease of (taking those no instance holds, or whose lease lapsed):
   * its stream open, its due orders sent, its orders and books reconciled. Another instance's accounts are left to it,
   * except at start (`everyAccount`): a lease a stopped process never handed back (a crash) stays until it lapses, and
   * the fills made while the service was down are polled at once whoever streams them later (polling books once).
   */
  async sweep(everyAccount = false): Promise<void> {
    const now = this.ctx.clock.now();
    const held = await this.ctx.store.db
      .updateTable('broker_connections')
      .set({ stream_owner: this.instance, stream_lease_until: new Date(now.getTime() + this.leaseMs) })
      .where((eb) => eb.or([eb('stream_owner', '=', this.instance), eb('stream_owner', 'is', null), eb('stream_lease_until', '<', now)]))
      .returning('account_id')
      .execute();
    const mine = new Set(held.map((r) => r.account_id));
    for (const [accountId, { stream }] of this.streams) {
      if (!mine.has(accountId)) {
        stream.close();
        this.streams.delete(accountId);
      }
    }
    const others = everyAccount
      ? (await this.ctx.store.db.selectFrom('broker_connections').select('account_id').execute()).map((r) => r.account_id)
      : [];
    for (const accountId of [...new Set([...mine, ...others])].sort()) {
      const port = await this.accounts.portFor(accountId);
      if (!port) continue;
      if (mine.has(accountId)) this.listen(accountId, port);
      await this.reconcile(accountId, port).catch((error: unknown) =>
        this.log.warn({ err: error, account_id: accountId }, 'broker reconcile failed'),
      );
    }
  }

  private listen(accountId: string, port: BrokerPort): void {
    const open = this.streams.get(accountId);
    if (open?.port === port) return;
    open?.stream.close();
    const name = brokerName(port.id);
    const stream = port.updates({
      update: (update) => {
        void applyBrokerOrder(this.ctx.store, accountId, update.order, name, this.ctx.clock.now())
          .then((moved) => (moved && update.execution ? this.refreshBooks(accountId, port) : undefined))
          .catch((error: unknown) => this.log.warn({ err: error, account_id: accountId }, 'trade update not applied'));
      },
      listening: () => {
        void this.reconcile(accountId, port).catch((error: unknown) =>
          this.log.warn({ err: error, account_id: accountId }, 'broker reconcile failed'),
        );
      },
      dropped: (reason) => this.log.warn({ account_id: accountId, reason }, 'trade updates dropped; reconnecting'),
    });
    this.streams.set(accountId, { port, stream });
  }

  /** Halts at the broker if the switch is engaged, sends what is due, polls every order the broker holds for the account, then refreshes its books. */
  async reconcile(accountId: string, port: BrokerPort): Promise<void> {
    await haltAtBroker(this.ctx, accountId, port, await effectiveKillSwitch(this.ctx.store.db, accountId));
    await this.sendDue(accountId);
    const open = await this.ctx.store.db
      .selectFrom('orders')
      .select('id')
      .where('account_id', '=', accountId)
      .where('status', 'in', [...AT_BROKER])
      .where('broker_id', '=', port.id)
      .where('next_submit_at', 'is', null)
      .orderBy('id')
      .execute();
    if (open.length > 0) {
      // One list of what is still open at the broker; only an order it no longer lists (filled, cancelled, expired since)
      // is asked for on its own.
      const listed = new Map((await port.openOrders()).map((order) => [order.clientOrderId, order]));
      const name = brokerName(port.id);
      for (const { id } of open) {
        const order = listed.get(id) ?? (await port.orderByClientId(id));
        if (order) await applyBrokerOrder(this.ctx.store, accountId, order, name, this.ctx.clock.now());
      }
    }
    await this.refreshBooks(accountId, port);
  }

  /** The books from the broker; when they last matched, and the last difference found (with when), stay with the connection. */
  async refreshBooks(accountId: string, port: BrokerPort): Promise<void> {
    const [account, positions] = await Promise.all([port.account(), port.positions()]);
    const { store, clock, config } = this.ctx;
    await store.transaction(async (trx) => {
      const now = clock.now();
      await lockPaperAccount(trx, accountId, config.paperStartingCash);
      const drift = await mirrorBooks(trx, accountId, account, positions, now);
      await trx
        .updateTable('broker_connections')
        .set({
          mirror_read_at: now,
          ...(drift ? { mirror_drift: JSON.stringify({ at: now.toISOString(), ...drift }) } : { mirror_matched_at: now }),
        })
        .where('account_id', '=', accountId)
        .execute();
    });
  }
}
