// Supported markets and their capital-market assumptions (the spec's market table must agree with this one).

export interface Market {
  readonly code: string;
  readonly currency: string;
  /** ISO 4217 minor unit: number of decimals amounts in this currency carry. */
  readonly currency_minor_units: number;
  /** Arithmetic mean of annual nominal total returns, as a fraction. */
  readonly expected_return: number;
  /** Standard deviation of annual nominal total returns, as a fraction. */
  readonly volatility: number;
  readonly reference: string;
  /** How the values were obtained: `historical` statistics of past annual returns. */
  readonly basis: 'historical';
  /** The years the statistics cover, e.g. `1928–2023`; null when the source's exact period is not shipped. */
  readonly period: string | null;
  /** Whether a test recomputes the values from a data set shipped in the repository (`data/`). */
  readonly recomputed_from_data: boolean;
}

const DMS_REFERENCE =
  'Long-run nominal annual equity total returns (arithmetic mean, rounded) and volatility (standard deviation), ' +
  'after Dimson, Marsh & Staunton, UBS Global Investment Returns Yearbook 2024, country tables';

/**
 * The US values: arithmetic mean and sample standard deviation (n − 1) of the S&P 500's annual total returns
 * 1928–2023 in data/damodaran-sp500-annual-returns-1928-2023.csv, rounded to 4 decimals (a test recomputes them).
 */
export const US_DAMODARAN = Object.freeze({
  file: 'data/damodaran-sp500-annual-returns-1928-2023.csv',
  period: '1928–2023',
  expected_return: 0.1166,
  volatility: 0.1955,
});
const US_REFERENCE =
  'Arithmetic mean and standard deviation of the S&P 500\'s annual total returns (dividends included) 1928–2023, ' +
  'Damodaran, Historical Returns on Stocks, Bonds and Bills, NYU Stern ' +
  '(https://pages.stern.nyu.edu/~adamodar/New_Home_Page/datafile/histretSP.html); the annual returns ship with the ' +
  `service (${US_DAMODARAN.file}) and a test recomputes both figures from them`;

function market(
  code: string, currency: string, minorUnits: number, expectedReturn: number, volatility: number,
  reference = DMS_REFERENCE, period: string | null = null, recomputed = false,
): Market {
  return Object.freeze({
    code, currency, currency_minor_units: minorUnits, expected_return: expectedReturn, volatility, reference,
    basis: 'historical' as const, period, recomputed_from_data: recomputed,
  });
}

export const MARKETS: Readonly<Record<string, Market>> = Object.freeze({
  US: market('US', 'USD', 2, US_DAMODARAN.expected_return, US_DAMODARAN.volatility, US_REFERENCE, US_DAMODARAN.period, true),
  CA: market('CA', 'CAD', 2, 0.09, 0.16),
  GB: market('GB', 'GBP', 2, 0.08, 0.15),
  DE: market('DE', 'EUR', 2, 0.08, 0.19),
  JP: market('JP', 'JPY', 0, 0.07, 0.18),
  AU: market('AU', 'AUD', 2, 0.09, 0.15),
});

export function supportedMarkets(): string[] {
  return Object.keys(MARKETS);
}

export function getMarket(code: string): Market | undefined {
  return Object.hasOwn(MARKETS, code) ? MARKETS[code] : undefined;
}
