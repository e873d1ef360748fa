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
}

const DMS_REFERENCE =
  'Long-run nominal annual equity total returns (arithmetic mean, rounded) and volatility (standard deviation), ' +
  'after Dimson, Marsh & Staunton, UBS Global Investment Returns Yearbook 2024, country tables';

function market(code: string, currency: string, minorUnits: number, expectedReturn: number, volatility: number, reference = DMS_REFERENCE): Market {
  return Object.freeze({ code, currency, currency_minor_units: minorUnits, expected_return: expectedReturn, volatility, reference });
}

export const MARKETS: Readonly<Record<string, Market>> = Object.freeze({
  US: market('US', 'USD', 2, 0.1, 0.16,
    `${DMS_REFERENCE}; cross-checked with Damodaran, Historical Returns on Stocks, Bonds and Bills 1928–2023, NYU Stern`),
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
