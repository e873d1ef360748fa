import { SimulatedPriceSource, type PriceSource, type Quote } from '../../src/services/market-data.js';
import { dec, roundMoney } from '../../src/services/money.js';

/** The simulated feed, with per-symbol multipliers and a lag a test can set (a crash, a stale feed). */
export class AdjustablePrices implements PriceSource {
  private readonly feed = new SimulatedPriceSource();
  private readonly factors = new Map<string, number>();
  lagMs = 0;
  /** While set, every quote throws (the feed is down): a request that needs a price fails with 500. */
  failing = false;

  /** Back to the simulated feed as it is (no factor, no lag, not failing): a suite's `before` starts from here. */
  reset(): void {
    this.factors.clear();
    this.lagMs = 0;
    this.failing = false;
  }

  scale(symbol: string, factor: number): void {
    this.factors.set(symbol, factor);
  }

  instrument(symbol: string) {
    return this.feed.instrument(symbol);
  }

  instruments(market: string) {
    return this.feed.instruments(market);
  }

  quote(symbol: string, at: Date): Quote {
    if (this.failing) throw new Error('the price feed is down');
    const quote = this.feed.quote(symbol, new Date(at.getTime() - this.lagMs));
    return { ...quote, price: roundMoney(quote.price.times(dec(this.factors.get(symbol) ?? 1))) };
  }
}

/**
 * Prices a test states itself, exactly, for every symbol of the simulated market: the amounts a test expects are then
 * worked out by hand from them, never by the code under test. A symbol without a set price keeps its reference price.
 */
export class FixedPrices implements PriceSource {
  private readonly feed = new SimulatedPriceSource();
  private readonly prices = new Map<string, string>();

  set(symbol: string, price: string): void {
    this.prices.set(symbol, price);
  }

  instrument(symbol: string) {
    return this.feed.instrument(symbol);
  }

  instruments(market: string) {
    return this.feed.instruments(market);
  }

  quote(symbol: string, at: Date): Quote {
    const instrument = this.feed.instrument(symbol);
    if (!instrument) throw new Error(`no instrument ${symbol}`);
    return { symbol, price: dec(this.prices.get(symbol) ?? instrument.reference_price), as_of: new Date(at) };
  }
}
