import type { components } from '../../generated/api.js';
import type { Actor } from '../auth/authorize.js';
import { PAPER_MARKETS } from './brokers.js';
import type { ServiceContext } from './context.js';
import { UnsupportedMarketError } from './errors.js';
import { PAPER_CURRENCY, positionsOf, readPaperAccount, value } from './ledger.js';
import { num } from './money.js';

type Portfolio = components['schemas']['Portfolio'];

/** Portfolios, ideas and orders exist only in the markets the paper broker trades. */
export function assertPaperMarket(market: string): void {
  if (!PAPER_MARKETS.includes(market)) throw new UnsupportedMarketError([market], PAPER_MARKETS, 'is not traded by the paper broker');
}

export class PortfolioService {
  constructor(private readonly ctx: ServiceContext) {}

  async get(actor: Actor<'getPortfolio'>, market: string): Promise<Portfolio> {
    assertPaperMarket(market);
    const { store, clock, prices, config } = this.ctx;
    const now = clock.now();
    const account = await readPaperAccount(store.db, actor.accountId, config.paperStartingCash);
    const positions = await positionsOf(store.db, actor.accountId);
    const valuation = value(prices, account.cash, positions, now);
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
}
