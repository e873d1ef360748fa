import { parseArgs } from 'node:util';
import { AlpacaStandIn } from './alpaca-stand-in.js';

/**
 * The Alpaca stand-in as its own process, for an acceptance check across processes:
 *
 *   npx tsx test/support/alpaca-stand-in-main.ts [--port P] [--data-port Q] [--key-id K --secret-key S] [--cash C]
 *     [--price AAPL=190.12 ...]
 *
 * It prints one JSON line, `{"tradingUrl":...,"dataUrl":...,"streamUrl":...}`, then serves until it is stopped
 * (SIGINT or SIGTERM). With a key pair it holds that one account (cash 100000 unless --cash says otherwise).
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'data-port': { type: 'string', default: '0' },
    'key-id': { type: 'string' },
    'secret-key': { type: 'string' },
    cash: { type: 'string', default: '100000' },
    price: { type: 'string', multiple: true, default: [] },
  },
});

const keyId = values['key-id'];
const secretKey = values['secret-key'];
if ((keyId === undefined) !== (secretKey === undefined)) {
  console.error('alpaca-stand-in: --key-id and --secret-key go together');
  process.exit(64);
}
const prices = values.price.map((pair) => {
  const [symbol, price] = pair.split('=');
  if (!symbol || !price) {
    console.error(`alpaca-stand-in: --price takes SYMBOL=PRICE, not ${pair}`);
    process.exit(64);
  }
  return { symbol, price };
});

const alpaca = await AlpacaStandIn.start({ port: Number(values.port), dataPort: Number(values['data-port']) });
if (keyId !== undefined && secretKey !== undefined) alpaca.addAccount({ keyId, secretKey, cash: values.cash });
for (const { symbol, price } of prices) alpaca.setPrice(symbol, price);
console.log(JSON.stringify({ tradingUrl: alpaca.tradingUrl, dataUrl: alpaca.dataUrl, streamUrl: alpaca.streamUrl }));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void alpaca.close().then(() => process.exit(0));
  });
}
