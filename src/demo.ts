import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { authorize } from './auth/authorize.js';
import { passwordProblem } from './auth/passwords.js';
import { currentDisclosure } from './services/disclosures.js';
import type { Services } from './services/index.js';

export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json';
const DEMO_CLIENT_NAME = 'Demo client';
const SEED_ORIGIN = { ip: '127.0.0.1', userAgent: 'demo seed' };

export interface DemoCredentials {
  client_id: string;
  client_secret: string;
  email: string;
  /** null when the demo person's password was set by a start whose credentials file is elsewhere (shared PostgreSQL). */
  password: string | null;
}

function readSaved(file: string): Partial<DemoCredentials> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<DemoCredentials>;
  } catch {
    return {};
  }
}

/** The operator's copy of the demo credentials, readable by the owner only; written whole or not at all. */
function save(file: string, credentials: DemoCredentials): void {
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

function newPassword(): string {
  for (;;) {
    const candidate = randomBytes(15).toString('base64url');
    if (!passwordProblem(candidate, DEMO_EMAIL)) return candidate;
  }
}

/**
 * A demo account holder with a 60/40 policy and a client holding every scope. Only hashes are in the database; the
 * plain credentials are kept in `DATA_DIR/demo-credentials.json` (mode 0600), and a restart reuses them while
 * they still work. Nothing is ever rotated here: when the saved copy does not work (a new DATA_DIR against a
 * shared PostgreSQL), a new demo client is created and the other copy keeps working.
 */
export async function seedDemo(services: Services, dataDir: string): Promise<DemoCredentials> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, DEMO_CREDENTIALS_FILE);
  const saved = readSaved(file);

  let client =
    saved.client_id && saved.client_secret && (await services.clients.secretMatches(saved.client_id, saved.client_secret))
      ? { client_id: saved.client_id, client_secret: saved.client_secret }
      : null;
  if (!client) {
    const created = await services.clients.create({
      accountEmail: DEMO_EMAIL,
      scopes: ['read', 'write', 'trade', 'mcp'],
      name: DEMO_CLIENT_NAME,
    });
    client = { client_id: created.client_id, client_secret: created.client_secret };
  }

  let password: string | null =
    saved.password && (await services.people.passwordMatches(DEMO_EMAIL, saved.password)) ? saved.password : null;
  if (!password && !(await services.people.hasPassword(DEMO_EMAIL))) {
    password = newPassword();
    await services.people.setPassword(DEMO_EMAIL, password, 'Demo Holder');
  }

  const credentials: DemoCredentials = { ...client, email: DEMO_EMAIL, password };
  save(file, credentials);
  await seedDemoPolicy(services, client.client_id, client.client_secret);
  return credentials;
}

/** What `make run` prints: the demo client next to the dashboard login. */
export function demoBanner(credentials: DemoCredentials, urls: { api: string; dashboard: string; file: string }): string {
  return (
    [
      '',
      `Demo client (account ${credentials.email} with a 60/40 VTI/BND policy, scopes read write trade mcp; kept in ${urls.file}, reused on restart):`,
      `  CLIENT_ID=${credentials.client_id}`,
      `  CLIENT_SECRET=${credentials.client_secret}`,
      `  curl -s -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials ${urls.api}/oauth/token`,
      `Dashboard: ${urls.dashboard} (manage clients, release the kill switch, sign policies). Log in as the demo person:`,
      `  EMAIL=${credentials.email}`,
      credentials.password
        ? `  PASSWORD=${credentials.password}`
        : `  PASSWORD is kept in the ${DEMO_CREDENTIALS_FILE} of the DATA_DIR that first set it (this database is shared); or sign up a new person`,
      `Docs: ${urls.api}/docs`,
      '',
    ].join('\n') + '\n'
  );
}

/**
 * A 60/40 ETF policy for the demo account, so the walk-through can go straight to ideas and approvals. The seed
 * acts as the demo client would: it obtains a token and goes through the same authorization as any caller.
 */
async function seedDemoPolicy(services: Services, clientId: string, clientSecret: string): Promise<void> {
  const token = await services.oauth.issueToken(
    { grant_type: 'client_credentials', scope: 'read trade' },
    { id: clientId, secret: clientSecret },
  );
  const principal = await services.tokens.authenticate(`Bearer ${token.access_token}`);
  const existing = await services.policies.list(authorize(principal, 'listPolicies', SEED_ORIGIN), { limit: 1 });
  if (existing.data.length > 0) return;
  await services.policies.create(authorize(principal, 'createPolicy', SEED_ORIGIN), {
    limits: {
      max_order_notional: 25000,
      max_position_weight: 0.7,
      max_daily_notional: 100000,
      max_daily_loss: 5000,
      allowed_markets: ['US'],
    },
    target_allocation: [
      { symbol: 'VTI', weight: 0.6 },
      { symbol: 'BND', weight: 0.4 },
    ],
    consent: { disclosure_version: currentDisclosure().version, accepted: true, signer_name: 'Demo Holder' },
  });
}
