import type { components } from '../../generated/api.js';
import { ProblemError } from '../problems.js';
import type { Services } from './index.js';
import { PAPER_CURRENCY, positionsOf, readPaperAccount, value } from './ledger.js';
import { num } from './money.js';

type Portfolio = components['schemas']['Portfolio'];

/** Markets the built-in paper broker trades. */
export const PAPER_MARKETS = ['US'];

export function assertPaperMarket(market: string): void {
  if (!PAPER_MARKETS.includes(market)) {
    throw new ProblemError('unsupported-market', `The paper broker trades ${PAPER_MARKETS.join(', ')}, not ${market}.`, { supported_markets: PAPER_MARKETS });
  }
}

export async function getPortfolio(services: Services, accountId: string, market: string): Promise<Portfolio> {
  assertPaperMarket(market);
  const db = services.db.kysely;
  const now = services.clock.now();
  const account = await readPaperAccount(db, accountId, services.config.paperStartingCash);
  const positions = await positionsOf(db, accountId);
  const valuation = value(services.prices, account.cash, positions, now);
  const updatedAt = positions.reduce((latest, p) => (p.updated_at > latest ? p.updated_at : latest), account.updated_at);
  return {
    market,
    currency: PAPER_CURRENCY,
    cash: num(valuation.cash),
    holdings: valuation.holdings.map(({ position, price, priceAsOf, marketValue }) => ({
      symbol: position.symbol,
      quantity: num(position.quantity),
      average_cost: num(position.average_cost),
      last_price: num(price),
      market_value: num(marketValue),
      unrealized_pnl: num(marketValue.minus(position.quantity.times(position.average_cost)).toDecimalPlaces(2)),
      weight: valuation.total.isZero() ? 0 : num(marketValue.dividedBy(valuation.total).toDecimalPlaces(6)),
      price_as_of: priceAsOf.toISOString(),
    })),
    market_value: num(valuation.marketValue),
    total_value: num(valuation.total),
    as_of: now.toISOString(),
    updated_at: updatedAt.toISOString(),
  };
}
