// The set-up the suites of an account connected to Alpaca share: the stand-in (speaking Alpaca's published documents)
// and a test server speaking to it, and an account connected to a new account at the broker. The REST suites
// (test/http/broker-orders.test.ts, broker-decisions.test.ts) connect a new holder for each test, with the stand-in as
// it opens; the GraphQL and MCP suites connect one for the suite.
import { expect } from 'chai';
import { AlpacaStandIn } from './alpaca-stand-in.js';
import { startTestServer, type TestServer } from './server.js';
import { policyHolder, type PolicyOverrides } from './trading.js';

export const SECRET = 'broker-flow-secret';

/** The account each connected holder opens at the broker: 20 000.00 in cash and 10 BND bought at 72.00. */
export const OPENING = { cash: '20000', positions: [{ symbol: 'BND', qty: '10', avgEntryPrice: '72.00' }] };

type Holdings = Omit<Parameters<AlpacaStandIn['addAccount']>[0], 'keyId' | 'secretKey'>;

/**
 * A stand-in and a test server speaking to it for the suite (its before and after hooks; `env` adds to the server's
 * environment), VTI at 330.00 and BND at 74.00; after the suite, no request may have strayed outside the documents.
 */
export function alpacaSuite(env: Record<string, string> = {}) {
  let alpaca: AlpacaStandIn;
  let server: TestServer;
  const closing: (() => Promise<unknown>)[] = [];

  before(async () => {
    alpaca = await AlpacaStandIn.start();
    server = await startTestServer({
      ALPACA_PAPER_URL: alpaca.tradingUrl,
      ALPACA_DATA_URL: alpaca.dataUrl,
      BROKER_TIMEOUT_MS: '1000',
      BROKER_RECONCILE_INTERVAL_MS: '300',
      ...env,
    });
    alpaca.setPrice('VTI', '330.00');
    alpaca.setPrice('BND', '74.00');
  });

  after(async () => {
    for (const close of closing) await close();
    await server?.close();
    expect(alpaca.violations(), 'requests outside the published documents').to.deep.equal([]);
    await alpaca.close();
  });

  /** Connects the account to a new account at the broker, under `keyId`, holding `holdings`. */
  async function connect(accountId: string, keyId: string, holdings: Holdings = OPENING): Promise<void> {
    alpaca.addAccount({ keyId, secretKey: SECRET, ...holdings });
    await server.services.brokerConnections.connect(accountId, { broker: 'alpaca', keyId, secretKey: SECRET, live: false });
  }

  return {
    get alpaca() {
      return alpaca;
    },
    get server() {
      return server;
    },
    connect,
    /** Closes what the suite opened on the server (a client) before the server closes. */
    beforeClose: (close: () => Promise<unknown>) => closing.push(close),
  };
}

/**
 * The REST suites' set-up: alpacaSuite with a submit window of 2.5 s, and for each test the stand-in as it opens (up,
 * answering at once, streaming, filling what it is sent, the market open) and a new holder connected to the broker
 * (`holder`); with the requests each test reads.
 */
export function connectedHolders(keyPrefix: string) {
  const suite = alpacaSuite({ BROKER_SUBMIT_WINDOW_MS: '2500' });
  let holder: Awaited<ReturnType<typeof policyHolder>>;
  let keys = 0;

  beforeEach(async () => {
    const { alpaca, server } = suite;
    alpaca.up();
    alpaca.slow(0);
    alpaca.muteStream(false);
    alpaca.onSubmit = 'fill';
    alpaca.setClock({ isOpen: true });
    alpaca.setPrice('VTI', '330.00');
    alpaca.setPrice('BND', '74.00');
    holder = await policyHolder(server);
    await suite.connect(holder.accountId, `${keyPrefix}${++keys}`);
  });

  const get = (path: string) => suite.server.api.request('GET', path, { token: holder.token });
  return {
    suite,
    get holder() {
      return holder;
    },
    get,
    approve: (id: string) => suite.server.api.request('POST', `/v1/orders/${id}/approve`, { token: holder.token }),
    orderOf: async (id: string) => (await get(`/v1/orders/${id}`)).body,
    /** The submits that carried the order's id as client order id. */
    posts: (id: string) =>
      suite.alpaca.requests.filter((r) => r.method === 'POST' && (r.body as { client_order_id?: string })?.client_order_id === id),
    /** The orders the broker holds under the order's id. */
    atBroker: (id: string) => suite.alpaca.orders().filter((o) => o.client_order_id === id),
    /** The requests that named the order (by its id as client order id). */
    asked: (id: string) =>
      suite.alpaca.requests.filter((r) => `${r.path}?${r.query.toString()} ${JSON.stringify(r.body ?? '')}`.includes(id)),
    /** Another holder, connected to a new account at the broker holding `holdings`, under `policy`. */
    connectedHolder: async (holdings: Holdings, policy: PolicyOverrides = {}) => {
      const other = await policyHolder(suite.server, policy);
      await suite.connect(other.accountId, `${keyPrefix}X${++keys}`, holdings);
      return other;
    },
  };
}
