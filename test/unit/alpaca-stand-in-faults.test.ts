import { spawn } from 'node:child_process';
import { ApiError, AuthError, FetchError, PermissionError, streaming, trading } from '@alpacahq/alpaca-trade-api';
import { expect } from 'chai';
import { openStream, sdkClients, type StreamClient } from '../support/alpaca-sdk.js';
import { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { until } from '../support/poll.js';
import { waitForOutput } from '../support/process.js';

const KEYS = { keyId: 'PKSTANDIN2', secret: 'stand-in-secret' };
const buy = (clientOrderId: string, qty = '1') => ({
  postOrderRequest: {
    symbol: 'AAPL',
    qty,
    side: trading.OrderSide.Buy,
    type: trading.OrderType.Market,
    timeInForce: trading.TimeInForce.Day,
    clientOrderId,
  },
});
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('the call succeeded'),
    (error: unknown) => error,
  );

describe('alpaca stand-in, driven by the Alpaca SDK: outages, slowness, a lost stream, refusals', () => {
  let alpaca: AlpacaStandIn;
  let sdk: ReturnType<typeof sdkClients>;
  let stream: StreamClient | undefined;
  const events = () => stream!.updates.map((u) => `${u.event}:${String(u.order.clientOrderId)}`);

  beforeEach(async () => {
    alpaca = await AlpacaStandIn.start();
    alpaca.addAccount({ keyId: KEYS.keyId, secretKey: KEYS.secret, cash: '100000' });
    alpaca.setPrice('AAPL', '190.12');
    sdk = sdkClients(alpaca, KEYS);
  });

  afterEach(async function () {
    stream?.stream.disconnect();
    stream = undefined;
    await alpaca.close();
    if (this.currentTest?.state !== 'passed') return;
    expect(alpaca.violations(), 'requests against the documents').to.deep.equal([]);
    expect(alpaca.answerViolations(), 'answers against the documents').to.deep.equal([]);
  });

  it('answers 503 while down (an ApiError with the status), and serves again once up', async () => {
    alpaca.down();
    const refused = await failure(sdk.accounts.getAccount());
    expect(refused).to.be.instanceOf(ApiError);
    expect(refused).to.include({ name: 'ApiError', status: 503, code: 50300000 });
    alpaca.up();
    expect(await sdk.accounts.getAccount()).to.include({ cash: '100000' });
    alpaca.down(20);
    await until('the stand-in to come up on its own', () =>
      sdk.accounts.getAccount().then(
        () => true,
        () => false,
      ),
    );
  });

  it('cuts the connection while down in reset mode: the SDK throws a FetchError, the request is recorded unanswered', async () => {
    alpaca.down({ mode: 'reset' });
    const cut = await failure(sdk.orders.postOrder(buy('order-cut')));
    expect(cut).to.be.instanceOf(FetchError);
    expect((cut as FetchError).cause).to.include({ name: 'TypeError', message: 'fetch failed' });
    expect(alpaca.requests.at(-1)).to.include({ method: 'POST', path: '/v2/orders' });
    expect(alpaca.requests.at(-1)!.status).to.equal(undefined);
    expect(alpaca.orders()).to.deep.equal([]);
  });

  it('delays answers: past timeoutMs the SDK throws a FetchError caused by a TimeoutError, and the order was placed', async () => {
    const impatient = sdkClients(alpaca, KEYS, 50);
    alpaca.slow(10_000);
    const timedOut = await failure(impatient.orders.postOrder(buy('order-slow')));
    expect(timedOut).to.be.instanceOf(FetchError);
    expect((timedOut as FetchError).cause).to.include({ name: 'TimeoutError' });
    alpaca.slow(0);
    expect(await sdk.orders.getOrderByClientOrderId({ clientOrderId: 'order-slow' })).to.include({ status: 'filled' });
  });

  it('drops the stream: the SDK reconnects, authenticates and listens again, and updates flow on the new connection', async () => {
    stream = await openStream(alpaca, KEYS);
    alpaca.dropStream();
    await until('the SDK to listen again', () => stream!.reconnections() === 1 && stream!.listening() === 2);
    await sdk.orders.postOrder(buy('order-after-drop'));
    await until('the updates', () => stream!.updates.length === 2);
    expect(events()).to.deep.equal(['new:order-after-drop', 'fill:order-after-drop']);
  });

  it('loses the updates sent while the stream is muted; the orders change all the same', async () => {
    stream = await openStream(alpaca, KEYS);
    alpaca.muteStream(true);
    await sdk.orders.postOrder(buy('order-muted'));
    expect(await sdk.orders.getOrderByClientOrderId({ clientOrderId: 'order-muted' })).to.include({ status: 'filled' });
    alpaca.muteStream(false);
    await sdk.orders.postOrder(buy('order-heard'));
    await until('the updates after unmuting', () => stream!.updates.length === 2);
    expect(events()).to.deep.equal(['new:order-heard', 'fill:order-heard']);
  });

  it('sends every update twice when repeating, the same execution both times', async () => {
    stream = await openStream(alpaca, KEYS);
    alpaca.repeatUpdates = true;
    await sdk.orders.postOrder(buy('order-twice'));
    await until('the repeated updates', () => stream!.updates.length === 4);
    expect(stream.updates.map((u) => u.event)).to.deep.equal(['new', 'new', 'fill', 'fill']);
    expect(stream.updates[2]!.executionId).to.be.a('string').and.equal(stream.updates[3]!.executionId);
  });

  it('refuses a wrong secret: 401 with Alpaca error body on both hosts (AuthError), unauthorized on the stream', async () => {
    const wrong = sdkClients(alpaca, { ...KEYS, secret: 'wrong' });
    for (const call of [wrong.accounts.getAccount(), wrong.stocks.stockLatestTrades({ symbols: 'AAPL' })]) {
      const refused = await failure(call);
      expect(refused).to.be.instanceOf(AuthError);
      expect(refused).to.include({ status: 401, code: 40110000, message: 'request is not authorized' });
    }
    const refusedStream = new streaming.TradingStream({
      credentials: { ...KEYS, secret: 'wrong' },
      url: alpaca.streamUrl,
      pingIntervalMs: 0,
    });
    refusedStream.onError(() => undefined);
    refusedStream.connect();
    expect(await refusedStream.whenAuthenticated()).to.include({
      status: streaming.STREAM_AUTH_STATUS.SERVER_REJECTED,
      authenticated: false,
    });
  });

  it('refuses a buy beyond the buying power with 403 (PermissionError)', async () => {
    const refused = await failure(sdk.orders.postOrder(buy('order-big', '1000')));
    expect(refused).to.be.instanceOf(PermissionError);
    expect(refused).to.include({ status: 403, code: 40310000, message: 'insufficient buying power' });
  });

  it('rejects, expires and rejects later, each with its update', async () => {
    stream = await openStream(alpaca, KEYS);
    alpaca.onSubmit = 'reject';
    await sdk.orders.postOrder(buy('order-rejected'));
    alpaca.onSubmit = 'rest';
    await sdk.orders.postOrder(buy('order-expired'));
    await sdk.orders.postOrder(buy('order-rejected-later'));
    alpaca.expire('order-expired');
    alpaca.rejectLater('order-rejected-later');
    await until('five updates', () => stream!.updates.length === 5);
    expect(events()).to.deep.equal([
      'rejected:order-rejected',
      'new:order-expired',
      'new:order-rejected-later',
      'expired:order-expired',
      'rejected:order-rejected-later',
    ]);
    expect((await sdk.orders.getAllOrders({ status: 'closed', direction: 'asc' })).map((o) => o.status)).to.deep.equal([
      'rejected',
      'expired',
      'rejected',
    ]);
  });

  it('runs as its own process, printing its URLs as one JSON line', async () => {
    const args = [
      '--import',
      'tsx',
      'test/support/alpaca-stand-in-main.ts',
      '--key-id',
      'PKMAIN',
      '--secret-key',
      's',
      '--price',
      'AAPL=190.12',
    ];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const urls = JSON.parse((await waitForOutput(child, /\n/)).trim()) as { tradingUrl: string; dataUrl: string; streamUrl: string };
      expect(urls.streamUrl).to.equal(`${urls.tradingUrl.replace('http', 'ws')}/stream`);
      const config = new trading.Configuration({ basePath: urls.tradingUrl, keyId: 'PKMAIN', secret: 's' });
      expect(await new trading.AccountsApi(config).getAccount()).to.include({ cash: '100000' });
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    }
  });
});
