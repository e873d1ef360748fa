// The Alpaca adapter: the broker port over Alpaca's Trading API and its market data, through Alpaca's own SDK
// (@alpacahq/alpaca-trade-api, pinned). Only this file knows Alpaca. docs/brokers.md says why the SDK: it is generated
// from the same published OpenAPI documents the tests check every request against, typed, maintained, with a deadline
// per attempt, retries of reads only (never of a POST), a base path per host and a trade-updates stream that
// reconnects with backoff.
import { ApiError, FetchError, marketData, streaming, trading } from '@alpacahq/alpaca-trade-api';
import { Decimal } from 'decimal.js';
import {
  BrokerError,
  type BrokerAccount,
  type BrokerOrder,
  type BrokerOrderStatus,
  type BrokerPort,
  type BrokerPosition,
  type BrokerQuote,
  type MarketClock,
  type OrderUpdate,
  type SubmitRequest,
  type UpdateListener,
  type UpdateStream,
} from './port.js';

type SdkOrder = trading.Order;

export interface AlpacaOptions {
  /** The trading host: paper (https://paper-api.alpaca.markets) or live (https://api.alpaca.markets), or a stand-in. */
  tradingUrl: string;
  /** The market-data host (https://data.alpaca.markets). */
  dataUrl: string;
  /** The trade-updates stream: `/stream` on the trading host, over ws(s). */
  streamUrl: string;
  keyId: string;
  secretKey: string;
  /** The deadline of one call, retries of a read included. */
  timeoutMs: number;
  /** Longest wait before the stream's next reconnection attempt (it doubles from 1 s up to this). */
  maxReconnectMs?: number;
}

/** Reads are retried within their deadline, at most a second apart (an outage of a few seconds passes); a POST or DELETE never is, here. */
const READ_RETRY = { maxRetries: 8, retryDelayMs: 250, maxDelayMs: 1_000 };

/** Alpaca's order statuses as the port's: what is still working, what filled, what ended. */
const STATUSES: Record<string, BrokerOrderStatus> = {
  new: 'accepted',
  accepted: 'accepted',
  pending_new: 'accepted',
  accepted_for_bidding: 'accepted',
  partially_filled: 'partially_filled',
  filled: 'filled',
  canceled: 'canceled',
  expired: 'expired',
  rejected: 'rejected',
};

/** IEX: the feed every Alpaca plan may read; the consolidated (SIP) feed's latest trades need a paid plan. */
const FEED = 'iex';

const decimal = (value: string | number | null | undefined, fallback = '0') => new Decimal(value ?? fallback);

export function brokerOrderOf(order: SdkOrder): BrokerOrder {
  const status = String(order.status ?? 'new');
  return {
    brokerOrderId: order.id ?? '',
    clientOrderId: order.clientOrderId ?? '',
    symbol: order.symbol ?? '',
    side: order.side === 'sell' ? 'sell' : 'buy',
    quantity: decimal(order.qty),
    status: STATUSES[status] ?? 'open',
    brokerStatus: status,
    filledQuantity: decimal(order.filledQty),
    averageFillPrice: order.filledAvgPrice ? decimal(order.filledAvgPrice) : null,
    submittedAt: order.submittedAt ?? null,
    filledAt: order.filledAt ?? null,
    updatedAt: order.updatedAt ?? order.createdAt ?? new Date(),
  };
}

/** What a failed SDK call means to the service. */
export function brokerFailure(error: unknown, what: string): BrokerError {
  if (error instanceof BrokerError) return error;
  if (error instanceof ApiError) {
    const said = error.message ? `: ${error.message}` : '';
    const status = error.status;
    if (status === 401) return new BrokerError('unauthorized', `Alpaca refused the API keys (${what}, HTTP 401${said}).`, status);
    if (status === 404) return new BrokerError('not_found', `Alpaca has no such ${what} (HTTP 404${said}).`, status);
    if (status === 429) return new BrokerError('rate_limited', `Alpaca asked to slow down (${what}, HTTP 429).`, status);
    if (status === 408 || status >= 500) return new BrokerError('unavailable', `Alpaca did not answer (${what}, HTTP ${status}).`, status);
    return new BrokerError('refused', `Alpaca refused ${what} (HTTP ${status}${said}).`, status);
  }
  if (error instanceof FetchError || (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))) {
    const cause = error instanceof FetchError ? error.cause : error;
    const timedOut = cause?.name === 'TimeoutError' || cause?.name === 'AbortError';
    return new BrokerError('unavailable', `Alpaca ${timedOut ? 'did not answer in time' : 'could not be reached'} (${what}).`);
  }
  return new BrokerError('unavailable', `Alpaca could not be reached (${what}).`);
}

export class AlpacaBroker implements BrokerPort {
  readonly id = 'alpaca';
  private readonly accounts: trading.AccountsApi;
  private readonly positionsApi: trading.PositionsApi;
  private readonly orders: trading.OrdersApi;
  private readonly clocks: trading.ClockApi;
  private readonly stocks: marketData.StockApi;

  constructor(private readonly options: AlpacaOptions) {
    const common = {
      keyId: options.keyId,
      secret: options.secretKey,
      timeoutMs: options.timeoutMs,
      retry: READ_RETRY,
      rateLimit: undefined,
      redirect: 'error' as const,
    };
    const tradingConfig = new trading.Configuration({ ...common, basePath: options.tradingUrl.replace(/\/+$/, '') });
    this.accounts = new trading.AccountsApi(tradingConfig);
    this.positionsApi = new trading.PositionsApi(tradingConfig);
    this.orders = new trading.OrdersApi(tradingConfig);
    this.clocks = new trading.ClockApi(tradingConfig);
    this.stocks = new marketData.StockApi(new marketData.Configuration({ ...common, basePath: options.dataUrl.replace(/\/+$/, '') }));
  }

  /** One call within the adapter's deadline, its failure translated. */
  private async call<T>(what: string, run: (init: RequestInit) => Promise<T>): Promise<T> {
    try {
      return await run({ signal: AbortSignal.timeout(this.options.timeoutMs) });
    } catch (error) {
      throw brokerFailure(error, what);
    }
  }

  async account(): Promise<BrokerAccount> {
    const account = await this.call('the account', (init) => this.accounts.getAccount(init));
    return {
      cash: decimal(account.cash),
      buyingPower: decimal(account.buyingPower),
      equityAtDayStart: typeof account.lastEquity === 'string' ? decimal(account.lastEquity) : null,
      currency: account.currency ?? 'USD',
      accountNumber: account.accountNumber ?? account.id,
      tradingBlocked: Boolean(account.tradingBlocked) || Boolean(account.accountBlocked),
      readAt: new Date(),
    };
  }

  async positions(): Promise<BrokerPosition[]> {
    const positions = await this.call('the positions', (init) => this.positionsApi.getAllOpenPositions(init));
    return positions.map((p) => {
      const quantity = decimal(p.qty);
      return {
        symbol: p.symbol,
        quantity: p.side === 'short' ? quantity.abs().negated() : quantity,
        averageCost: decimal(p.avgEntryPrice),
        lastPrice: p.currentPrice ? decimal(p.currentPrice) : null,
      };
    });
  }

  async latestPrices(symbols: readonly string[]): Promise<Map<string, BrokerQuote>> {
    const quotes = new Map<string, BrokerQuote>();
    if (symbols.length === 0) return quotes;
    const answer = await this.call('the latest trades', (init) =>
      this.stocks.stockLatestTrades({ symbols: [...new Set(symbols)].join(','), feed: FEED }, init),
    );
    for (const [symbol, trade] of Object.entries(answer.trades ?? {})) {
      quotes.set(symbol, { symbol, price: new Decimal(String(trade.p)), asOf: new Date(trade.t) });
    }
    return quotes;
  }

  async clock(): Promise<MarketClock> {
    const clock = await this.call('the market clock', (init) => this.clocks.legacyClock(init));
    return {
      isOpen: clock.isOpen,
      nextOpen: new Date(clock.nextOpen),
      nextClose: new Date(clock.nextClose),
      at: new Date(clock.timestamp),
    };
  }

  /**
   * One POST. Alpaca refuses a client order id it already holds (422), and a retry after a timeout or a 5xx sends the
   * same id: on a 422 the order placed under that id, if any, is the answer — never a second order for one decision.
   */
  async submit(request: SubmitRequest): Promise<BrokerOrder> {
    const body: trading.PostOrderRequest = {
      symbol: request.symbol,
      qty: request.quantity,
      side: request.side,
      type: request.type,
      timeInForce: request.timeInForce,
      clientOrderId: request.clientOrderId,
      ...(request.type === 'limit' && request.limitPrice !== undefined ? { limitPrice: request.limitPrice } : {}),
    };
    try {
      return await this.call('the order', async (init) => brokerOrderOf(await this.orders.postOrder({ postOrderRequest: body }, init)));
    } catch (error) {
      if (!(error instanceof BrokerError) || error.status !== 422) throw error;
      const placed = await this.orderByClientId(request.clientOrderId);
      if (placed) return placed;
      throw error;
    }
  }

  async cancel(clientOrderId: string): Promise<void> {
    const order = await this.orderByClientId(clientOrderId);
    if (!order) throw new BrokerError('not_found', `Alpaca has no order ${clientOrderId}.`, 404);
    await this.call('the cancellation', (init) => this.orders.deleteOrderByOrderID({ orderId: order.brokerOrderId }, init));
  }

  async orderByClientId(clientOrderId: string): Promise<BrokerOrder | undefined> {
    try {
      return await this.call('order', async (init) => brokerOrderOf(await this.orders.getOrderByClientOrderId({ clientOrderId }, init)));
    } catch (error) {
      if (error instanceof BrokerError && error.kind === 'not_found') return undefined;
      throw error;
    }
  }

  async openOrders(): Promise<BrokerOrder[]> {
    const orders = await this.call('the open orders', (init) =>
      this.orders.getAllOrders({ status: 'open', limit: 500, direction: 'asc' }, init),
    );
    return orders.map(brokerOrderOf);
  }

  updates(listener: UpdateListener): UpdateStream {
    const stream = new streaming.TradingStream({
      credentials: { keyId: this.options.keyId, secret: this.options.secretKey },
      url: this.options.streamUrl,
      reconnect: true,
      maxReconnectAttempts: -1,
      initialReconnectMs: 1_000,
      maxReconnectMs: this.options.maxReconnectMs ?? 30_000,
    });
    // Subscribed before connecting: the SDK sends `listen` after every authentication (subscribing in onConnect again
    // would send it twice a connection).
    stream.subscribeTradeUpdates();
    stream.on(streaming.EVENT.SUBSCRIPTION, () => listener.listening());
    stream.onDisconnect(() => listener.dropped('the trade-updates stream closed'));
    stream.onError((message) => listener.dropped(`the trade-updates stream failed: ${message}`));
    stream.onTradeUpdate((update) => listener.update(orderUpdateOf(update)));
    stream.connect();
    return { close: () => stream.disconnect() };
  }
}

export function orderUpdateOf(update: streaming.TradeUpdate): OrderUpdate {
  const execution =
    update.qty !== undefined && update.price !== undefined ? { quantity: decimal(update.qty), price: decimal(update.price) } : undefined;
  return {
    event: update.event,
    order: brokerOrderOf(update.order),
    at: update.timestamp ?? new Date(),
    ...(execution ? { execution } : {}),
  };
}
