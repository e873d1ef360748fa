// The set-up of the REST suites of previews (test/http/order-previews*.test.ts): a test server at a clock the test
// moves, VTI at 330.00 and BND at 74.00 unless a test says otherwise, and the calls they make.
import { FixedPrices } from './prices.js';
import { startTestServer, type TestServer } from './server.js';
import { manualClock, policyHolder, type PolicyOverrides } from './trading.js';

export const START = '2026-11-20T15:00:00.000Z';

/** Registers the suite's hooks; `server()` is there once they ran. */
export function previewSuite() {
  const clock = manualClock(START);
  const prices = new FixedPrices();
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, { clock, prices });
  });
  after(() => server?.close());
  beforeEach(() => {
    clock.set(START);
    prices.set('VTI', '330.00');
    prices.set('BND', '74.00');
  });

  /** A holder (policy 60/40 VTI and BND, and `policy`) with a proposed buy of 10 VTI. */
  async function proposed(policy: PolicyOverrides = {}) {
    const holder = await policyHolder(server, policy);
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '10' });
    return { ...holder, order: order! };
  }
  return {
    clock,
    prices,
    server: () => server,
    proposed,
    preview: (token: string, id: string) => server.api.post(`/v1/orders/${id}/preview`, { token }),
    approve: (token: string, id: string, previewId?: string) =>
      server.api.post(`/v1/orders/${id}/approve`, { token, ...(previewId ? { json: { preview_id: previewId } } : {}) }),
    order: async (token: string, id: string) => (await server.api.get(`/v1/orders/${id}`, { token })).body,
  };
}
