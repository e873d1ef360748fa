import type { components } from '../../generated/api.js';
import { decodeCursor, encodeCursor, DEFAULT_PAGE_SIZE, type Page } from './pagination.js';

type Broker = components['schemas']['Broker'];

/**
 * The catalogue. `paper` is built in and executes orders; the others are listed with the capabilities their
 * public documentation states, `not_configured` until an adapter and credentials exist.
 */
export const BROKERS: readonly Broker[] = [
  {
    id: 'paper',
    name: 'Paper brokerage (built in)',
    status: 'active',
    markets: ['US'],
    capabilities: { order_types: ['market', 'limit'], fractional_shares: true, short_selling: false, asset_classes: ['equity', 'etf'], paper: true, live: false },
  },
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

/** The catalogue in pages; the cursor is the offset of the next entry. */
export function listBrokers(query: { limit?: number; cursor?: string }): Page<Broker> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const from = decodeCursor<number>(query.cursor, 'number') ?? 0;
  const next = from + limit;
  return { data: BROKERS.slice(from, next), next_cursor: next < BROKERS.length ? encodeCursor(next) : null };
}
