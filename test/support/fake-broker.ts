import { Decimal } from 'decimal.js';
import type { BrokerConnectionConfig, BrokerFactory } from '../../src/brokers/connection.js';
import { BrokerError, type BrokerAccount, type BrokerPort } from '../../src/brokers/port.js';

/**
 * Brokers in memory for the connection's tests: accounts by key id, each with its secret and number; `down` makes
 * every call fail as a broker that does not answer. Only `account` is served: connecting needs nothing else.
 */
export class FakeBrokers {
  readonly accounts = new Map<string, { secretKey: string; accountNumber: string; live: boolean }>();
  /** Every port made, with what it was made for. */
  readonly made: { accountId: string; connection: BrokerConnectionConfig }[] = [];
  down = false;

  add(keyId: string, secretKey: string, accountNumber: string, live = false): this {
    this.accounts.set(keyId, { secretKey, accountNumber, live });
    return this;
  }

  readonly factory: BrokerFactory = (accountId, connection) => {
    this.made.push({ accountId, connection });
    const account = async (): Promise<BrokerAccount> => {
      if (this.down) throw new BrokerError('unavailable', 'the fake broker is down');
      const found = this.accounts.get(connection.keyId);
      if (!found || found.secretKey !== connection.secretKey || found.live !== connection.live) {
        throw new BrokerError('unauthorized', 'request forbidden', 401);
      }
      const cash = new Decimal('100000');
      const readAt = new Date();
      return {
        cash,
        buyingPower: cash,
        equityAtDayStart: cash,
        currency: 'USD',
        accountNumber: found.accountNumber,
        tradingBlocked: false,
        readAt,
      };
    };
    const unused = () => Promise.reject(new Error('not served by the fake broker'));
    const port: BrokerPort = {
      id: connection.broker,
      account,
      positions: unused,
      latestPrices: unused,
      clock: unused,
      submit: unused,
      cancel: unused,
      orderByClientId: unused,
      openOrders: unused,
      updates: () => ({ close: () => {} }),
    };
    return port;
  };
}
