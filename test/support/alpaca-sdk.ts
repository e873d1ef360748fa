import { marketData, streaming, trading } from '@alpacahq/alpaca-trade-api';
import type { AlpacaStandIn } from './alpaca-stand-in.js';
import { until } from './poll.js';

export interface Keys {
  keyId: string;
  secret: string;
}

/** Alpaca's SDK (4.0.2) as the adapter builds it: its raw Api classes, on a `Configuration` whose basePath is the stand-in. */
export function sdkClients(alpaca: AlpacaStandIn, { keyId, secret }: Keys, timeoutMs = 5_000) {
  const config = new trading.Configuration({ basePath: alpaca.tradingUrl, keyId, secret, timeoutMs });
  const data = new marketData.Configuration({ basePath: alpaca.dataUrl, keyId, secret, timeoutMs });
  return {
    accounts: new trading.AccountsApi(config),
    positions: new trading.PositionsApi(config),
    orders: new trading.OrdersApi(config),
    clock: new trading.ClockApi(config),
    stocks: new marketData.StockApi(data),
  };
}

export interface StreamClient {
  stream: streaming.TradingStream;
  updates: streaming.TradeUpdate[];
  /** How many `listening` answers it has had: one per (re)connection. */
  listening: () => number;
  reconnections: () => number;
  errors: string[];
}

/**
 * The SDK's `TradingStream` on the stand-in's `/stream`, subscribed to `trade_updates` before it connects (subscribing
 * in `onConnect` instead makes the SDK send `listen` twice per connection); resolves once the server said it listens.
 * Reconnects quickly and without pings, so a test waits on nothing but the stand-in.
 */
export async function openStream(alpaca: AlpacaStandIn, { keyId, secret }: Keys): Promise<StreamClient> {
  const stream = new streaming.TradingStream({
    credentials: { keyId, secret },
    url: alpaca.streamUrl,
    initialReconnectMs: 10,
    backoff: false,
    reconnectJitter: 0,
    pingIntervalMs: 0,
  });
  const updates: streaming.TradeUpdate[] = [];
  const errors: string[] = [];
  let listening = 0;
  let reconnections = 0;
  stream.onTradeUpdate((update) => updates.push(update));
  stream.on(streaming.EVENT.SUBSCRIPTION, () => listening++);
  stream.onReconnected(() => reconnections++);
  stream.onError((error) => errors.push(error));
  stream.subscribeTradeUpdates();
  stream.connect();
  await until('the trading stream to listen', () => listening > 0);
  return { stream, updates, errors, listening: () => listening, reconnections: () => reconnections };
}
