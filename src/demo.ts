import { currentDisclosure } from './services/disclosures.js';
import type { Services } from './services/index.js';
import { createPolicy, getCurrentPolicy } from './services/policies.js';

export const DEMO_EMAIL = 'demo@example.com';
const DEMO_CLIENT_NAME = 'Demo client';

/** A demo account with a client holding every scope; its secret is new on each start because only hashes are kept. */
export async function seedDemo(services: Services): Promise<{ client_id: string; client_secret: string }> {
  const existing = (await services.clients.list(DEMO_EMAIL)).find((c) => c.name === DEMO_CLIENT_NAME && !c.revoked_at);
  const client = existing
    ? await services.clients.rotate(existing.client_id)
    : await services.clients.create({ accountEmail: DEMO_EMAIL, scopes: ['read', 'write', 'trade', 'mcp'], name: DEMO_CLIENT_NAME });
  if (!client) throw new Error('could not prepare the demo client');
  await seedDemoPolicy(services, client.account_id, client.client_id);
  const { baseUrl } = services.config;
  process.stdout.write(
    [
      '',
      'Demo client (account demo@example.com with a 60/40 VTI/BND policy, scopes read write trade mcp). The secret is shown only now:',
      `  CLIENT_ID=${client.client_id}`,
      `  CLIENT_SECRET=${client.client_secret}`,
      `  curl -s -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials ${baseUrl}/oauth/token`,
      `Docs: ${baseUrl}/docs`,
      '',
    ].join('\n') + '\n',
  );
  return { client_id: client.client_id, client_secret: client.client_secret };
}

/** A 60/40 ETF policy for the demo account, so the walk-through can go straight to ideas and approvals. */
async function seedDemoPolicy(services: Services, accountId: string, clientId: string): Promise<void> {
  if (await getCurrentPolicy(services.db.kysely, accountId)) return;
  await createPolicy(services.db.kysely, {
    accountId,
    clientId,
    ip: '127.0.0.1',
    userAgent: 'demo seed',
    now: services.clock.now(),
    prices: services.prices,
    body: {
      limits: { max_order_notional: 25000, max_position_weight: 0.7, max_daily_notional: 100000, max_daily_loss: 5000, allowed_markets: ['US'] },
      target_allocation: [
        { symbol: 'VTI', weight: 0.6 },
        { symbol: 'BND', weight: 0.4 },
      ],
      consent: { disclosure_version: currentDisclosure().version, accepted: true, signer_name: 'Demo Holder' },
    },
  });
}
