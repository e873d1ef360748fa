import type { components } from '../../generated/api.js';
import type { Actor } from '../auth/authorize.js';
import { PAPER_MARKETS } from './brokers.js';
import type { ServiceContext } from './context.js';
import { UnsupportedMarketError } from './errors.js';
import { brokerName } from './brokerage/directory.js';
import { mirrorBooks } from './brokerage/mirror.js';
import { readBroker } from './brokerage/snapshot.js';
import { lockPaperAccount, PAPER_CURRENCY, positionsOf, readPaperAccount, value } from './ledger.js';
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
    const { store, clock, config } = this.ctx;
    let { prices } = this.ctx;
    const port = await this.ctx.brokers.portFor(actor.accountId);
    if (port) {
      // A connected account's portfolio is its broker's: read now, written into the books, priced by the broker.
      const broker = await readBroker(port, prices, [], brokerName(port.id));
      await store.transaction(async (trx) => {
        await lockPaperAccount(trx, actor.accountId, config.paperStartingCash);
        await mirrorBooks(trx, actor.accountId, broker.account, broker.positions, clock.now());
      });
      prices = broker.prices;
    }
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
