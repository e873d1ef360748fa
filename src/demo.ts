import type { Services } from './services/index.js';

export const DEMO_EMAIL = 'demo@example.com';
const DEMO_CLIENT_NAME = 'Demo client';

/** A demo account with a client holding every scope; its secret is new on each start because only hashes are kept. */
export async function seedDemo(services: Services): Promise<{ client_id: string; client_secret: string }> {
  const existing = (await services.clients.list(DEMO_EMAIL)).find((c) => c.name === DEMO_CLIENT_NAME && !c.revoked_at);
  const client = existing
    ? await services.clients.rotate(existing.client_id)
    : await services.clients.create({ accountEmail: DEMO_EMAIL, scopes: ['read', 'write', 'trade', 'mcp'], name: DEMO_CLIENT_NAME });
  if (!client) throw new Error('could not prepare the demo client');
  const { baseUrl } = services.config;
  process.stdout.write(
    [
      '',
      'Demo client (account demo@example.com, scopes read write trade mcp). The secret is shown only now:',
      `  CLIENT_ID=${client.client_id}`,
      `  CLIENT_SECRET=${client.client_secret}`,
      `  curl -s -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials ${baseUrl}/oauth/token`,
      `Docs: ${baseUrl}/docs`,
      '',
    ].join('\n') + '\n',
  );
  return { client_id: client.client_id, client_secret: client.client_secret };
}
