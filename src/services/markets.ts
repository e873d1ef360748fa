// Supported markets and their capital-market assumptions (the spec's market table must agree with this one).

/** A market's own capital-market assumptions, with where they come from. */
export interface MarketAssumptions {
  /** Arithmetic mean of annual nominal total returns, as a fraction. */
  readonly expected_return: number;
  /** Standard deviation of annual nominal total returns, as a fraction. */
  readonly volatility: number;
  readonly reference: string;
  /** How the values were obtained: `historical` statistics of past annual returns. */
  readonly basis: 'historical';
  /** The years the statistics cover, e.g. `1928–2023`. */
  readonly period: string;
  /** The data set in the repository (`data/`) a test recomputes the values from. */
  readonly file: string;
}

export interface Market {
  readonly code: string;
  readonly currency: string;
  /** ISO 4217 minor unit: number of decimals amounts in this currency carry. */
  readonly currency_minor_units: number;
  /**
   * The market's default assumptions, or null where none ship that can be reproduced (no data set of the market's
   * returns is in the repository and no forward-looking source stating exact figures is cited): requests for such a
   * market bring their own `assumptions`.
   */
  readonly assumptions: MarketAssumptions | null;
}

/**
 * The US values: arithmetic mean and sample standard deviation (n − 1) of the S&P 500's annual total returns
 * 1928–2023 in data/damodaran-sp500-annual-returns-1928-2023.csv, rounded to 4 decimals (a test recomputes them).
 */
export const US_DAMODARAN: MarketAssumptions = Object.freeze({
  file: 'data/damodaran-sp500-annual-returns-1928-2023.csv',
  period: '1928–2023',
  expected_return: 0.1166,
  volatility: 0.1955,
  basis: 'historical' as const,
  reference:
    "Arithmetic mean and standard deviation of the S&P 500's annual total returns (dividends included) 1928–2023, " +
    'Damodaran, Historical Returns on Stocks, Bonds and Bills, NYU Stern ' +
    '(https://pages.stern.nyu.edu/~adamodar/New_Home_Page/datafile/histretSP.html); the annual returns ship with the ' +
    'service (data/damodaran-sp500-annual-returns-1928-2023.csv) and a test recomputes both figures from them',
});

function market(code: string, currency: string, minorUnits: number, assumptions: MarketAssumptions | null = null): Market {
  return Object.freeze({ code, currency, currency_minor_units: minorUnits, assumptions });
}

/**
 * The supported markets. Only US ships default assumptions: the other markets' earlier figures (rounded long-run
 * numbers "after" a yearbook whose tables are not public) could be neither recomputed nor cited exactly, so they
 * were withdrawn; those markets take the caller's own assumptions (an advisor's capital-market assumptions).
 */
export const MARKETS: Readonly<Record<string, Market>> = Object.freeze({
  US: market('US', 'USD', 2, US_DAMODARAN),
  CA: market('CA', 'CAD', 2),
  GB: market('GB', 'GBP', 2),
  DE: market('DE', 'EUR', 2),
  JP: market('JP', 'JPY', 0),
  AU: market('AU', 'AUD', 2),
});

/** Markets whose requests may leave out `assumptions`. */
export function marketsWithAssumptions(): string[] {
  return Object.values(MARKETS)
    .filter((m) => m.assumptions)
    .map((m) => m.code);
}

export function supportedMarkets(): string[] {
  return Object.keys(MARKETS);
}

export function getMarket(code: string): Market | undefined {
  return Object.hasOwn(MARKETS, code) ? MARKETS[code] : undefined;
}
