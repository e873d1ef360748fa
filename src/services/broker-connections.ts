import type { Kysely, Selectable } from 'kysely';
import type { Queryable } from './store.js';
import type { Database } from '../../db/schema.js';
import type { BrokerConnectionsTable } from '../../db/tables/brokers.js';
import { CONNECTABLE_BROKERS, type BrokerConnectionConfig, type BrokerFactory, type ConnectableBroker } from '../brokers/connection.js';
import { open, seal, SealedSecretError } from '../brokers/credentials.js';
import { BrokerError, type BrokerAccount, type BrokerPort } from '../brokers/port.js';
import type { Clock } from '../clock.js';
import type { BrokersConfig } from '../config.js';
import { InvalidInputError, ProblemError, type FieldProblem } from './errors.js';
import { ReadThrough } from './read-through.js';

/** An account's connection as the holder and the operator see it: never the secret key. */
export interface BrokerConnectionView {
  account_id: string;
  broker: ConnectableBroker;
  /** A live (real-money) account; false: the broker's paper account. */
  live: boolean;
  key_id: string;
  broker_account_number: string;
  connected_at: string;
  mirror_read_at: string | null;
  mirror_matched_at: string | null;
}

/** What the Broker page shows: the connection, and what connecting allows here. */
export interface BrokerConnectionState {
  connection: BrokerConnectionView | null;
  /** Whether the operator set a key to seal secret keys with (or the start derived one). */
  canConnect: boolean;
  liveEnabled: boolean;
  /** The key is the demo's and the tests' derived one: it protects nothing. */
  keyDerived: boolean;
}

export interface ConnectInput {
  broker: string;
  keyId: string;
  secretKey: string;
  live: boolean;
}

const NAMES: Record<ConnectableBroker, string> = { alpaca: 'Alpaca' };
/** When to try again after the broker did not answer. */
const RETRY_AFTER_MS = 5000;
/** Ports kept in memory at most (one per connected account in use); past it the least recently made goes. */
const MAX_CACHED_PORTS = 10_000;
/** Alpaca's key ids and secrets are printable ASCII without spaces; these bounds only keep rubbish out. */
const KEY_ID = /^[\x21-\x7e]{1,128}$/;
const SECRET_KEY = /^[\x21-\x7e]{1,256}$/;

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

function view(row: Selectable<BrokerConnectionsTable>): BrokerConnectionView {
  return {
    account_id: row.account_id,
    broker: row.broker as ConnectableBroker,
    live: row.live,
    key_id: row.key_id,
    broker_account_number: row.broker_account_number,
    connected_at: iso(row.connected_at)!,
    mirror_read_at: iso(row.mirror_read_at),
    mirror_matched_at: iso(row.mirror_matched_at),
  };
}

const isConnectable = (broker: string): broker is ConnectableBroker => (CONNECTABLE_BROKERS as readonly string[]).includes(broker);

/** The input's fields as stored, or every field that cannot be (a secret key is never echoed in the refusal). */
function checked(input: ConnectInput): { broker: ConnectableBroker; keyId: string; secretKey: string; live: boolean } {
  const broker = input.broker.trim();
  const keyId = input.keyId.trim();
  const secretKey = input.secretKey.trim();
  const problems: FieldProblem[] = [];
  if (!isConnectable(broker)) problems.push({ field: 'broker', detail: `must be one of ${CONNECTABLE_BROKERS.join(', ')}` });
  if (!KEY_ID.test(keyId))
    problems.push({ field: 'key_id', detail: 'must be the API key ID the broker shows (up to 128 characters, no spaces)' });
  if (!SECRET_KEY.test(secretKey)) {
    problems.push({
      field: 'secret_key',
      detail: 'must be the secret key the broker showed with the key ID (up to 256 characters, no spaces)',
    });
  }
  if (problems.length > 0 || !isConnectable(broker)) throw new InvalidInputError(problems);
  return { broker, keyId, secretKey, live: input.live };
}

/** The broker's account for the keys, or the refusal a holder can act on; nothing the adapter said about the keys. */
async function accountAtBroker(port: BrokerPort, broker: ConnectableBroker, live: boolean): Promise<BrokerAccount> {
  const name = NAMES[broker];
  try {
    return await port.account();
  } catch (error) {
    if (!(error instanceof BrokerError)) {
      // Anything but the port's own failure is a defect of the adapter: its message or cause (a request with its
      // headers) could hold the keys, and the pipeline logs what it is thrown, so only its name goes on.
      // eslint-disable-next-line preserve-caught-error -- the cause could carry the keys into the log
      throw new Error(`the ${name} adapter failed while checking keys (${(error as Error)?.name})`);
    }
    if (error.kind === 'unavailable' || error.kind === 'rate_limited') {
      throw new ProblemError(
        'broker-unavailable',
        `${name} did not answer in time, so the keys could not be checked; nothing was stored. Try again shortly.`,
        {},
        RETRY_AFTER_MS,
      );
    }
    const kind = live ? 'live' : 'paper';
    const why =
      error.kind === 'unauthorized' || error.status === 403
        ? `${name} refused the API key ID and secret key for a ${kind} account`
        : `${name} would not show the account for these keys (HTTP ${error.status ?? 'error'})`;
    throw new ProblemError(
      'broker-credentials-refused',
      `${why}. Check that both were copied whole and that they are ${kind} keys (paper and live accounts have keys of their own); nothing was stored.`,
    );
  }
}

/**
 * Accounts' connections to real brokers: connecting checks the keys at the broker and keeps the secret key sealed
 * (src/brokers/credentials.ts); `portFor` is the account's broker port, made once per connection and kept. Used by
 * the dashboard (a signed-in holder, their own account) and the operator CLI; no API client reaches it.
 */
export class BrokerConnections {
  private readonly ports = new Map<string, { sealed: string; port: BrokerPort }>();
  /** Told when an account was connected here or traded through its broker (the instance's sync streams it at once). */
  onTouched: (accountId: string) => void = () => undefined;
  /** Each account's connected broker (null: none) as the catalogue shows it, read through (config.statusCacheMs). */
  private readonly connected: ReadThrough<string, ConnectableBroker | null>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly config: BrokersConfig,
    private readonly factory: BrokerFactory,
  ) {
    this.connected = new ReadThrough(config.statusCacheMs, (accountId) =>
      this.db
        .selectFrom('broker_connections')
        .select('broker')
        .where('account_id', '=', accountId)
        .executeTakeFirst()
        .then((row) => (row ? (row.broker as ConnectableBroker) : null)),
    );
  }

  /**
   * The broker the account is connected to, null for none, as the catalogue shows it: read on every `listBrokers`, so
   * kept per instance; a change made here shows at once, one made on another instance within `statusCacheMs`.
   */
  connectedBroker(accountId: string): ConnectableBroker | null | Promise<ConnectableBroker | null> {
    return this.connected.get(accountId);
  }

  /** The account's connection and what connecting allows (the Broker page). */
  async state(accountId: string): Promise<BrokerConnectionState> {
    return {
      connection: (await this.connectionOf(accountId)) ?? null,
      canConnect: this.config.credentialsKey !== undefined,
      liveEnabled: this.config.alpaca.liveEnabled,
      keyDerived: this.config.credentialsKey?.derived ?? false,
    };
  }

  /**
   * Checks the keys at the broker (its account endpoint) and keeps the connection, replacing any earlier one of the
   * account. Refused keys, a live account while live trading is off, a broker that does not answer: nothing is kept.
   */
  async connect(accountId: string, input: ConnectInput): Promise<BrokerConnectionView> {
    const key = this.key();
    const { broker, keyId, secretKey, live } = checked(input);
    if (live && !this.config.alpaca.liveEnabled) {
      throw new ProblemError(
        'live-trading-disabled',
        'Live trading is off on this service (the operator has not set ALPACA_LIVE_ENABLED=true): connect a paper account.',
      );
    }
    const port = this.factory(accountId, this.connection(broker, live, keyId, secretKey));
    const account = await accountAtBroker(port, broker, live);
    const values = {
      broker,
      live,
      key_id: keyId,
      secret_sealed: seal(key, accountId, secretKey),
      broker_account_number: account.accountNumber,
      connected_at: this.clock.now(),
      mirror_read_at: null,
      mirror_matched_at: null,
      mirror_drift: null,
    };
    const row = await this.db
      .insertInto('broker_connections')
      .values({ account_id: accountId, ...values })
      .onConflict((conflict) => conflict.column('account_id').doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    this.remember(accountId, row.secret_sealed, port);
    this.connected.forget(accountId);
    this.onTouched(accountId);
    return view(row);
  }

  /** The account traded through its broker (an approval committed): tells `onTouched`. */
  touched(accountId: string): void {
    this.onTouched(accountId);
  }

  /** Disconnects the account; refused (409 broker-orders-open) while orders it sent the broker are open there. */
  async disconnect(accountId: string): Promise<BrokerConnectionView | undefined> {
    const open = await this.db
      .selectFrom('orders as o')
      .innerJoin('broker_connections as c', (join) => join.onRef('c.account_id', '=', 'o.account_id').onRef('c.broker', '=', 'o.broker_id'))
      .select('o.id')
      .where('o.account_id', '=', accountId)
      .where('o.status', 'in', ['submitted', 'partially_filled'])
      .orderBy('o.id')
      .execute();
    if (open.length > 0) {
      const ids = open.map((o) => o.id);
      const which = `${ids.length} ${ids.length === 1 ? 'order is' : 'orders are'} still open at the broker (${ids.join(', ')})`;
      throw new ProblemError('broker-orders-open', `${which}: cancel them, or wait until they fill, then disconnect.`, { order_ids: ids });
    }
    const row = await this.db.deleteFrom('broker_connections').where('account_id', '=', accountId).returningAll().executeTakeFirst();
    this.ports.delete(accountId);
    this.connected.forget(accountId);
    return row && view(row);
  }

  async connectionOf(accountId: string): Promise<BrokerConnectionView | undefined> {
    const row = await this.db.selectFrom('broker_connections').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    return row && view(row);
  }

  /**
   * The broker port of a connected account (the adapter with its opened secret key), made once per connection and
   * kept until the account disconnects or connects again (on any instance); undefined for a paper account.
   */
  async portFor(accountId: string, db: Queryable = this.db): Promise<BrokerPort | undefined> {
    // Inside a use case's transaction its own connection reads (the embedded database has only one).
    const row = await db
      .selectFrom('broker_connections')
      .select(['broker', 'live', 'key_id', 'secret_sealed'])
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) {
      this.ports.delete(accountId);
      return undefined;
    }
    const kept = this.ports.get(accountId);
    if (kept?.sealed === row.secret_sealed) return kept.port;
    let secretKey: string;
    try {
      secretKey = open(this.key(), accountId, row.secret_sealed);
    } catch (error) {
      if (!(error instanceof SealedSecretError)) throw error;
      throw new ProblemError(
        'broker-not-configured',
        "The account's broker keys do not open with the configured BROKER_CREDENTIALS_KEY: the operator must restore the key they were sealed with.",
      );
    }
    const port = this.factory(accountId, this.connection(row.broker as ConnectableBroker, row.live, row.key_id, secretKey));
    this.remember(accountId, row.secret_sealed, port);
    return port;
  }

  private key(): Buffer {
    const key = this.config.credentialsKey;
    if (!key) {
      throw new ProblemError(
        'broker-not-configured',
        'Connecting a broker account needs BROKER_CREDENTIALS_KEY, the key its secret key is stored under, and the operator has not set it.',
      );
    }
    return key.bytes;
  }

  private connection(broker: ConnectableBroker, live: boolean, keyId: string, secretKey: string): BrokerConnectionConfig {
    const { alpaca, timeoutMs } = this.config;
    const endpoints = live ? alpaca.live : alpaca.paper;
    return { broker, live, keyId, secretKey, ...endpoints, dataUrl: alpaca.dataUrl, timeoutMs };
  }

  private remember(accountId: string, sealed: string, port: BrokerPort): void {
    this.ports.delete(accountId);
    if (this.ports.size >= MAX_CACHED_PORTS) this.ports.delete(this.ports.keys().next().value!);
    this.ports.set(accountId, { sealed, port });
  }
}
