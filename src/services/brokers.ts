import type { components } from '../../generated/api.js';
import type { Actor } from '../auth/authorize.js';
import type { BrokerConnections } from './broker-connections.js';
import { decodeCursor, encodeCursor, DEFAULT_PAGE_SIZE, type Page, type PageRequest } from './pagination.js';

type Broker = components['schemas']['Broker'];

const PAPER: Broker = {
  id: 'paper',
  name: 'Paper brokerage (built in)',
  status: 'active',
  markets: ['US'],
  capabilities: {
    order_types: ['market', 'limit'],
    fractional_shares: true,
    short_selling: false,
    asset_classes: ['equity', 'etf'],
    paper: true,
    live: false,
  },
};

/** Markets the built-in paper broker trades: portfolios, ideas and policies are limited to them. */
export const PAPER_MARKETS: readonly string[] = PAPER.markets;

/**
 * The catalogue. `paper` is built in and executes orders; the others are listed with the capabilities their
 * public documentation states, `not_configured` until the caller's account is connected to them.
 */
export const BROKERS: readonly Broker[] = [
  PAPER,
  {
    id: 'alpaca',
    name: 'Alpaca',
    status: 'not_configured',
    markets: ['US'],
    capabilities: {
      order_types: ['market', 'limit', 'stop', 'stop_limit', 'trailing_stop'],
      fractional_shares: true,
      short_selling: true,
      asset_classes: ['equity', 'etf', 'option', 'crypto'],
      paper: true,
      live: true,
    },
  },
  {
    id: 'interactive_brokers',
    name: 'Interactive Brokers',
    status: 'not_configured',
    markets: ['US', 'CA', 'GB', 'DE', 'JP', 'AU'],
    capabilities: {
      order_types: ['market', 'limit', 'stop', 'stop_limit', 'trailing_stop'],
      fractional_shares: true,
      short_selling: true,
      asset_classes: ['equity', 'etf', 'option', 'future', 'bond', 'fx'],
      paper: true,
      live: true,
    },
  },
];

export class BrokerService {
  constructor(private readonly connections: Pick<BrokerConnections, 'connectedBroker'>) {}

  /**
   * The catalogue in pages, as the caller's account sees it: a broker the account is connected to is `active`; the
   * cursor is the offset of the next entry. Another instance's change of the account's connection shows within
   * BROKER_STATUS_CACHE_MS (BrokerConnections.connectedBroker).
   */
  async list(actor: Actor<'listBrokers'>, page: PageRequest): Promise<Page<Broker>> {
    const limit = page.limit ?? DEFAULT_PAGE_SIZE;
    const from = decodeCursor<number>(page.cursor, 'number', (n) => Number.isInteger(n) && n >= 0) ?? 0;
    const next = from + limit;
    const connected = await this.connections.connectedBroker(actor.accountId);
    const data = BROKERS.slice(from, next).map((broker) => (broker.id === connected ? { ...broker, status: 'active' as const } : broker));
    return { data, next_cursor: next < BROKERS.length ? encodeCursor(next) : null };
  }
}
