import { createHash } from 'node:crypto';
import { dec, roundMoney, type Dec } from './money.js';

export interface Instrument {
  symbol: string;
  name: string;
  market: 'US';
  currency: 'USD';
  asset_class: 'etf' | 'equity';
  /** Reference price in USD the simulated feed moves around. */
  reference_price: string;
}

export interface Quote {
  symbol: string;
  price: Dec;
  /** When the price was observed. */
  as_of: Date;
}

/** Where prices come from. The default simulates; a live adapter implements the same two methods. */
export interface PriceSource {
  instrument(symbol: string): Instrument | undefined;
  instruments(market: string): Instrument[];
  quote(symbol: string, at: Date): Quote;
  /** Whether it can price a symbol outside the catalogue (a broker's latest trades can); absent: it cannot. */
  has?(symbol: string): boolean;
}

const i = (symbol: string, name: string, asset_class: Instrument['asset_class'], reference_price: string): Instrument => ({
  symbol,
  name,
  market: 'US',
  currency: 'USD',
  asset_class,
  reference_price,
});

/** Broad US-listed ETFs and large US stocks, with reference prices (USD, rounded, late 2025). */
export const US_UNIVERSE: readonly Instrument[] = [
  i('SPY', 'SPDR S&P 500 ETF Trust', 'etf', '670.00'),
  i('IVV', 'iShares Core S&P 500 ETF', 'etf', '673.00'),
  i('VOO', 'Vanguard S&P 500 ETF', 'etf', '615.00'),
  i('VTI', 'Vanguard Total Stock Market ETF', 'etf', '328.00'),
  i('QQQ', 'Invesco QQQ Trust', 'etf', '600.00'),
  i('VXUS', 'Vanguard Total International Stock ETF', 'etf', '72.00'),
  i('VEA', 'Vanguard FTSE Developed Markets ETF', 'etf', '60.00'),
  i('VWO', 'Vanguard FTSE Emerging Markets ETF', 'etf', '53.00'),
  i('BND', 'Vanguard Total Bond Market ETF', 'etf', '74.00'),
  i('AGG', 'iShares Core U.S. Aggregate Bond ETF', 'etf', '100.00'),
  i('TLT', 'iShares 20+ Year Treasury Bond ETF', 'etf', '90.00'),
  i('SHY', 'iShares 1-3 Year Treasury Bond ETF', 'etf', '83.00'),
  i('GLD', 'SPDR Gold Shares', 'etf', '375.00'),
  i('VNQ', 'Vanguard Real Estate ETF', 'etf', '90.00'),
  i('AAPL', 'Apple Inc.', 'equity', '265.00'),
  i('MSFT', 'Microsoft Corporation', 'equity', '510.00'),
  i('NVDA', 'NVIDIA Corporation', 'equity', '185.00'),
  i('AMZN', 'Amazon.com, Inc.', 'equity', '225.00'),
  i('GOOGL', 'Alphabet Inc. Class A', 'equity', '280.00'),
  i('META', 'Meta Platforms, Inc.', 'equity', '610.00'),
  i('BRK.B', 'Berkshire Hathaway Inc. Class B', 'equity', '500.00'),
  i('JPM', 'JPMorgan Chase & Co.', 'equity', '305.00'),
  i('V', 'Visa Inc.', 'equity', '335.00'),
  i('JNJ', 'Johnson & Johnson', 'equity', '195.00'),
  i('PG', 'The Procter & Gamble Company', 'equity', '150.00'),
  i('XOM', 'Exxon Mobil Corporation', 'equity', '115.00'),
  i('KO', 'The Coca-Cola Company', 'equity', '70.00'),
  i('COST', 'Costco Wholesale Corporation', 'equity', '910.00'),
];

const MINUTE = 60_000;
/** (amplitude of ln price, period in minutes): a day-scale swing, an hour-scale one and a fast one. */
const WAVES: ReadonlyArray<readonly [number, number]> = [
  [0.03, 6 * 24 * 60 + 7],
  [0.012, 24 * 60 - 11],
  [0.005, 97],
];

function phases(symbol: string): number[] {
  const digest = createHash('sha256').update(symbol).digest();
  return WAVES.map((_, k) => (digest.readUInt32BE(k * 4) / 0x1_0000_0000) * 2 * Math.PI);
}

/**
 * Deterministic simulated feed: the price of a symbol at a minute is its reference price times e^(Σ a·sin(2πt/P + φ)),
 * with phases drawn from the symbol's hash. Prices move minute by minute, stay within a few percent of the
 * reference, and are the same on every run and every instance for the same time.
 */
export class SimulatedPriceSource implements PriceSource {
  private readonly bySymbol: Map<string, Instrument>;
  private readonly phaseCache = new Map<string, number[]>();

  constructor(private readonly universe: readonly Instrument[] = US_UNIVERSE) {
    this.bySymbol = new Map(universe.map((inst) => [inst.symbol, inst]));
  }

  instrument(symbol: string): Instrument | undefined {
    return this.bySymbol.get(symbol);
  }

  instruments(market: string): Instrument[] {
    return this.universe.filter((inst) => inst.market === market);
  }

  quote(symbol: string, at: Date): Quote {
    const instrument = this.bySymbol.get(symbol);
    if (!instrument) throw new Error(`no price for unknown symbol ${symbol}`);
    const minute = Math.floor(at.getTime() / MINUTE);
    let phaseList = this.phaseCache.get(symbol);
    if (!phaseList) {
      phaseList = phases(symbol);
      this.phaseCache.set(symbol, phaseList);
    }
    const exponent = WAVES.reduce(
      (sum, [amplitude, period], k) => sum + amplitude * Math.sin((2 * Math.PI * minute) / period + phaseList[k]!),
      0,
    );
    const price = roundMoney(dec(instrument.reference_price).times(dec(Math.exp(exponent).toFixed(12))));
    return { symbol, price, as_of: new Date(minute * MINUTE) };
  }
}
