import { parseArgs } from 'node:util';
import { migrateToLatest, openDatabase, DatabaseInUseError, type Db } from '../db/connect.js';
import { normalizeEmail } from '../src/auth/passwords.js';
import { SecretHasher } from '../src/auth/secrets.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { ClientInputError, ClientService, parseScopes } from '../src/services/clients.js';
import { GLOBAL_SCOPE, engage, release } from '../src/services/kill-switch.js';
import { contactMessages } from '../src/services/people.js';

const USAGE = `Operator CLI: administers the database the server uses (DATABASE_URL, or the embedded one in DATA_DIR).

  client create --account EMAIL --scopes "read trade" [--name NAME] [--json]
  client list --account EMAIL [--json]
  client rotate CLIENT_ID [--json]
  client revoke CLIENT_ID [--json]
  kill-switch global on|off [--reason TEXT]
  kill-switch account release --account EMAIL [--reason TEXT]   (on the holder's behalf; holders release it in the dashboard)
  contact list [--json]                                          (messages sent through POST /v1/contact, newest first)
`;

class UsageError extends Error {}

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

async function run(argv: string[], db: Db): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean', default: false },
      reason: { type: 'string' },
    },
  });
  const config = loadConfig();
  const clients = new ClientService(db.kysely, new SecretHasher(config.bcryptCost), 0);
  const [group, action, target] = positionals;
  const json = values.json ?? false;

  if (group === 'client' && action === 'create') {
    if (!values.account || !values.scopes) throw new UsageError('client create needs --account EMAIL and --scopes "read trade"');
    const client = await clients.create({ accountEmail: values.account, scopes: parseScopes(values.scopes), name: values.name });
    print(json, client, `client_id=${client.client_id}\nclient_secret=${client.client_secret}\n(the secret is shown only this once)`);
    return 0;
  }
  if (group === 'client' && action === 'list') {
    if (!values.account) throw new UsageError('client list needs --account EMAIL');
    const list = await clients.list(values.account);
    print(json, list, list.map((c) => `${c.client_id}\t${c.scopes.join(' ')}\t${c.revoked_at ? 'revoked' : 'active'}\t${c.name}`).join('\n') || '(no clients)');
    return 0;
  }
  if (group === 'client' && (action === 'rotate' || action === 'revoke')) {
    if (!target) throw new UsageError(`client ${action} needs a CLIENT_ID`);
    const client = action === 'rotate' ? await clients.rotate(target) : await clients.revoke(target);
    if (!client) {
      process.stderr.write(`No active client ${target}.\n`);
      return 1;
    }
    const text = action === 'rotate' && 'client_secret' in client ? `client_secret=${client.client_secret}\n(the secret is shown only this once; earlier tokens no longer work)` : `revoked ${target}; its tokens no longer work`;
    print(json, client, text);
    return 0;
  }
  if (group === 'kill-switch' && action === 'global' && (target === 'on' || target === 'off')) {
    const now = new Date();
    const changed =
      target === 'on'
        ? await engage(db.kysely, GLOBAL_SCOPE, 'operator', values.reason ?? 'engaged by an operator', now)
        : await release(db.kysely, GLOBAL_SCOPE, 'operator', values.reason ?? null, now);
    print(json, { level: 'global', engaged: target === 'on', changed }, `global kill switch ${target}${changed ? '' : ' (it already was)'}`);
    return 0;
  }
  if (group === 'contact' && action === 'list') {
    const messages = await contactMessages(db.kysely);
    print(json, messages, messages.map((m) => `${m.received_at}\t${m.id}\t${m.name} <${m.email}>\n  ${m.message.replace(/\n/g, '\n  ')}`).join('\n') || '(no messages)');
    return 0;
  }
  if (group === 'kill-switch' && action === 'account' && target === 'release') {
    if (!values.account) throw new UsageError('kill-switch account release needs --account EMAIL');
    const account = await db.kysely.selectFrom('accounts').select('id').where('email', '=', normalizeEmail(values.account)).executeTakeFirst();
    if (!account) {
      process.stderr.write(`No account ${values.account}.\n`);
      return 1;
    }
    const changed = await release(db.kysely, account.id, 'operator', values.reason ?? null, new Date());
    print(json, { level: 'account', engaged: false, changed }, changed ? `released the kill switch of ${values.account}` : `the kill switch of ${values.account} was not engaged`);
    return 0;
  }
  throw new UsageError(positionals.length ? `unknown command "${positionals.join(' ')}"` : 'no command given');
}

async function main(): Promise<void> {
  let db: Db | undefined;
  let code = 1;
  try {
    const config = loadConfig();
    db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
    await migrateToLatest(db.kysely);
    code = await run(process.argv.slice(2), db);
  } catch (error) {
    if (error instanceof UsageError) process.stderr.write(`${error.message}\n\n${USAGE}`);
    else if (error instanceof ConfigError || error instanceof ClientInputError || error instanceof DatabaseInUseError) {
      process.stderr.write(`${error.message}\n`);
    } else if ((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    else process.stderr.write(`Failed: ${(error as Error).message}\n`);
    code = error instanceof UsageError ? 64 : 1;
  } finally {
    await db?.close();
  }
  process.exit(code);
}

void main();
