import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { BrokerDirectory } from './brokerage/directory.js';
import type { PriceSource } from './market-data.js';
import type { Store } from './store.js';

/** What every use case is bound to: the database, the clock, prices and configuration. Adapters never see it. */
export interface ServiceContext {
  store: Store;
  clock: Clock;
  prices: PriceSource;
  /** The broker each account is connected to, if any. */
  brokers: BrokerDirectory;
  config: Config;
}
