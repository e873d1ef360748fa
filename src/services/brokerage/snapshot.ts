// An account as its broker states it, read at once before a decision: cash, buying power, positions, the latest
// prices of what it holds and of what it would trade, and the market's clock.
import { BrokerError, type BrokerAccount, type BrokerPort, type BrokerPosition, type MarketClock } from '../../brokers/port.js';
import { ProblemError } from '../../problems.js';
import type { Instrument, PriceSource, Quote } from '../market-data.js';
import { NotFoundError } from '../errors.js';
import { dec } from '../money.js';
import type { Queryable } from '../store.js';
import { brokerName } from './directory.js';

export interface BrokerSnapshot {
  account: BrokerAccount;
  positions: BrokerPosition[];
  clock: MarketClock;
  /** Prices as the broker states them: the latest trade of each symbol asked for, else the position's price. */
  prices: QuotedPrices;
}

/**
 * Prices from the broker, for one decision: the latest trade of each symbol, at the time it was made. The instruments
 * (what a policy may name, what ideas may propose) stay the service's catalogue; a holding outside it is still valued.
 * `at` is ignored: the broker's latest price is the only one there is.
 */
export class QuotedPrices implements PriceSource {
  constructor(
    private readonly catalogue: PriceSource,
    private readonly quotes: ReadonlyMap<string, Quote>,
  ) {}

  instrument(symbol: string): Instrument | undefined {
    return this.catalogue.instrument(symbol);
  }

  instruments(market: string): Instrument[] {
    return this.catalogue.instruments(market);
  }

  has(symbol: string): boolean {
    return this.quotes.has(symbol);
  }

  quote(symbol: string, _at: Date): Quote {
    const quote = this.quotes.get(symbol);
    if (!quote) throw new ProblemError('broker-unavailable', `The broker states no price of ${symbol} now; try again later.`, {}, 60_000);
    return quote;
  }
}

/** A broker that did not answer is a 503 the caller may retry; its other refusals say what the broker said. */
export function brokerProblem(error: unknown, brokerName: string): unknown {
  if (!(error instanceof BrokerError)) return error;
  if (error.kind === 'unauthorized')
    return new ProblemError(
      'broker-credentials-refused',
      `${brokerName} refused the account's keys: connect the account again with valid keys.`,
    );
  if (error.kind === 'refused' || error.kind === 'not_found') return new ProblemError('broker-unavailable', error.message, {}, 60_000);
  return new ProblemError(
    'broker-unavailable',
    `${brokerName} did not answer in time; nothing was decided, try again.`,
    {},
    error.kind === 'rate_limited' ? 60_000 : 5_000,
  );
}

/** Reads the account, its positions, the clock and the prices of `symbols` and of every holding, in parallel. */
export async function readBroker(
  port: BrokerPort,
  catalogue: PriceSource,
  symbols: readonly string[],
  brokerName: string,
): Promise<BrokerSnapshot> {
  try {
    const [account, positions, clock] = await Promise.all([port.account(), port.positions(), port.clock()]);
    const wanted = [...new Set([...symbols, ...positions.map((p) => p.symbol)])];
    const latest = await port.latestPrices(wanted);
    const quotes = new Map<string, Quote>();
    for (const position of positions) {
      if (position.lastPrice)
        quotes.set(position.symbol, { symbol: position.symbol, price: dec(position.lastPrice), as_of: account.readAt });
    }
    for (const [symbol, quote] of latest) quotes.set(symbol, { symbol, price: dec(quote.price), as_of: quote.asOf });
    return { account, positions, clock, prices: new QuotedPrices(catalogue, quotes) };
  } catch (error) {
    throw brokerProblem(error, brokerName);
  }
}

/**
 * What the broker states for a decision on one of the account's orders (an approval, a preview): read before any
 * transaction, nothing locked while the broker answers; 404 for an order that is not the account's.
 */
export async function readBrokerForOrder(
  db: Queryable,
  port: BrokerPort,
  catalogue: PriceSource,
  accountId: string,
  orderId: string,
): Promise<BrokerSnapshot> {
  const order = await db
    .selectFrom('orders')
    .select('symbol')
    .where('id', '=', orderId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!order) throw new NotFoundError(`There is no order ${orderId}.`);
  return readBroker(port, catalogue, [order.symbol], brokerName(port.id));
}
