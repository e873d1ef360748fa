import { authorize } from './auth/authorize.js';
import { currentDisclosure } from './services/disclosures.js';
import type { Services } from './services/index.js';

export const DEMO_EMAIL = 'demo@example.com';
const DEMO_CLIENT_NAME = 'Demo client';
const SEED_ORIGIN = { ip: '127.0.0.1', userAgent: 'demo seed' };

/** A demo account with a client holding every scope; its secret is new on each start because only hashes are kept. */
export async function seedDemo(services: Services, baseUrl: string): Promise<{ client_id: string; client_secret: string }> {
  const existing = (await services.clients.list(DEMO_EMAIL)).find((c) => c.name === DEMO_CLIENT_NAME && !c.revoked_at);
  const client = existing
    ? await services.clients.rotate(existing.client_id)
    : await services.clients.create({ accountEmail: DEMO_EMAIL, scopes: ['read', 'write', 'trade', 'mcp'], name: DEMO_CLIENT_NAME });
  if (!client) throw new Error('could not prepare the demo client');
  await seedDemoPolicy(services, client.client_id, client.client_secret);
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

/**
 * A 60/40 ETF policy for the demo account, so the walk-through can go straight to ideas and approvals. The seed
 * acts as the demo client would: it obtains a token and goes through the same authorization as any caller.
 */
async function seedDemoPolicy(services: Services, clientId: string, clientSecret: string): Promise<void> {
  const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
  const token = await services.oauth.issueToken({ grant_type: 'client_credentials', scope: 'read trade' }, basic);
  const principal = await services.tokens.authenticate(`Bearer ${token.access_token}`);
  const existing = await services.policies.list(authorize(principal, 'listPolicies', SEED_ORIGIN), { limit: 1 });
  if (existing.data.length > 0) return;
  await services.policies.create(authorize(principal, 'createPolicy', SEED_ORIGIN), {
    limits: { max_order_notional: 25000, max_position_weight: 0.7, max_daily_notional: 100000, max_daily_loss: 5000, allowed_markets: ['US'] },
    target_allocation: [
      { symbol: 'VTI', weight: 0.6 },
      { symbol: 'BND', weight: 0.4 },
    ],
    consent: { disclosure_version: currentDisclosure().version, accepted: true, signer_name: 'Demo Holder' },
  });
}
