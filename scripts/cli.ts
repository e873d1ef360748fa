import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { adminSocketKysely, adminSocketPath } from '../db/admin-socket.js';
import { migrateToLatest, openDatabase, DatabaseInUseError, type Db } from '../db/connect.js';
import { normalizeEmail } from '../src/auth/passwords.js';
import { SecretHasher } from '../src/auth/secrets.js';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { ClientInputError, ClientService, parseScopes } from '../src/services/clients.js';
import { GLOBAL_SCOPE, engage, release } from '../src/services/kill-switch.js';
import { contactMessages } from '../src/services/people.js';
import { BROKER_OPTIONS, brokerCommands } from './cli-brokers.js';
import { WEBHOOK_OPTIONS, webhookCommands } from './cli-webhooks.js';

const PROGRAM = 'npm run cli --';
const INTRO = `Operator CLI: administers the database the server uses (DATABASE_URL, or the embedded one in DATA_DIR).
It works while the server runs: on PostgreSQL directly, on the embedded database through the running service's
admin socket (DATA_DIR/admin/db.sock, readable only by the service's user); with the service stopped it opens the
embedded database itself.`;

const OPTIONS = {
  account: { type: 'string' },
  scopes: { type: 'string' },
  name: { type: 'string' },
  reason: { type: 'string' },
  ...WEBHOOK_OPTIONS,
  ...BROKER_OPTIONS,
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = {
  account?: string;
  scopes?: string;
  name?: string;
  reason?: string;
  url?: string;
  events?: string;
  description?: string;
  broker?: string;
  'key-id'?: string;
  'secret-key'?: string;
  live: boolean;
  json: boolean;
};

/** A usage mistake: one line saying what is wrong, exit code 64. */
class UsageError extends Error {}

interface Command {
  /** The words that name it, e.g. ['client', 'create']. */
  words: string[];
  usage: string;
  help: string;
  run(context: { db: Db; config: Config; values: Values; args: string[] }): Promise<number>;
}

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

const clientsOf = (db: Db, config: Config) => new ClientService(db.kysely, new SecretHasher(config.bcryptCost), 0);

function needs(value: string | undefined, what: string, command: Command): string {
  if (!value) throw new UsageError(`${command.words.join(' ')} needs ${what}`);
  return value;
}

const COMMANDS: Command[] = [
  {
    words: ['client', 'create'],
    usage: 'client create --account EMAIL --scopes "read trade" [--name NAME] [--json]',
    help: [
      'Creates an API client for the account (creating the account if absent) and prints its client_id and client_secret.',
      'The secret is shown only this once; only its hash is stored. Scopes: read, write, trade, mcp.',
    ].join(' '),
    async run({ db, config, values }) {
      const account = needs(values.account, '--account EMAIL', this);
      const scopes = needs(values.scopes, '--scopes "read trade"', this);
      const client = await clientsOf(db, config).create({ accountEmail: account, scopes: parseScopes(scopes), name: values.name });
      print(
        values.json,
        client,
        `client_id=${client.client_id}\nclient_secret=${client.client_secret}\n(the secret is shown only this once)`,
      );
      return 0;
    },
  },
  {
    words: ['client', 'list'],
    usage: 'client list --account EMAIL [--json]',
    help: "Lists the account's clients with their scopes and whether they are active or revoked.",
    async run({ db, config, values }) {
      const list = await clientsOf(db, config).list(needs(values.account, '--account EMAIL', this));
      print(
        values.json,
        list,
        list.map((c) => `${c.client_id}\t${c.scopes.join(' ')}\t${c.revoked_at ? 'revoked' : 'active'}\t${c.name}`).join('\n') ||
          '(no clients)',
      );
      return 0;
    },
  },
  {
    words: ['client', 'rotate'],
    usage: 'client rotate CLIENT_ID [--json]',
    help: 'Gives the client a new secret (shown only this once); tokens issued under the old one stop working.',
    async run({ db, config, values, args }) {
      const id = needs(args[0], 'a CLIENT_ID', this);
      const client = await clientsOf(db, config).rotate(id);
      if (!client) return notFound(`No active client ${id}.`);
      print(
        values.json,
        client,
        `client_secret=${client.client_secret}\n(the secret is shown only this once; earlier tokens no longer work)`,
      );
      return 0;
    },
  },
  {
    words: ['client', 'revoke'],
    usage: 'client revoke CLIENT_ID [--json]',
    help: 'Revokes the client for good; its tokens stop working.',
    async run({ db, config, values, args }) {
      const id = needs(args[0], 'a CLIENT_ID', this);
      const client = await clientsOf(db, config).revoke(id);
      if (!client) return notFound(`No active client ${id}.`);
      print(values.json, client, `revoked ${id}; its tokens no longer work`);
      return 0;
    },
  },
  {
    words: ['kill-switch', 'global'],
    usage: 'kill-switch global on|off [--reason TEXT] [--json]',
    help: 'Engages or releases the global kill switch (operators only): while it is on, no order of any account can be approved.',
    async run({ db, values, args }) {
      const state = args[0];
      if (state !== 'on' && state !== 'off') throw new UsageError('kill-switch global needs on or off');
      const now = new Date();
      const changed =
        state === 'on'
          ? await db.kysely
              .transaction()
              .execute((trx) => engage(trx, GLOBAL_SCOPE, 'operator', values.reason ?? 'engaged by an operator', now))
          : await db.kysely.transaction().execute((trx) => release(trx, GLOBAL_SCOPE, 'operator', values.reason ?? null, now));
      print(
        values.json,
        { level: 'global', engaged: state === 'on', changed },
        `global kill switch ${state}${changed ? '' : ' (it already was)'}`,
      );
      return 0;
    },
  },
  {
    words: ['kill-switch', 'account', 'release'],
    usage: 'kill-switch account release --account EMAIL [--reason TEXT] [--json]',
    help: "Releases an account's kill switch on its holder's behalf (holders release it themselves in the dashboard; no API client can).",
    async run({ db, values }) {
      const email = needs(values.account, '--account EMAIL', this);
      const account = await db.kysely.selectFrom('accounts').select('id').where('email', '=', normalizeEmail(email)).executeTakeFirst();
      if (!account) return notFound(`No account ${email}.`);
      const changed = await db.kysely
        .transaction()
        .execute((trx) => release(trx, account.id, 'operator', values.reason ?? null, new Date()));
      print(
        values.json,
        { level: 'account', engaged: false, changed },
        changed ? `released the kill switch of ${email}` : `the kill switch of ${email} was not engaged`,
      );
      return 0;
    },
  },
  {
    words: ['contact', 'list'],
    usage: 'contact list [--json]',
    help: 'Lists the messages sent through POST /v1/contact, newest first.',
    async run({ db, values }) {
      const messages = await contactMessages(db.kysely);
      print(
        values.json,
        messages,
        messages.map((m) => `${m.received_at}\t${m.id}\t${m.name} <${m.email}>\n  ${m.message.replace(/\n/g, '\n  ')}`).join('\n') ||
          '(no messages)',
      );
      return 0;
    },
  },
  ...webhookCommands({ usage: (message) => new UsageError(message), print }),
  ...brokerCommands({ usage: (message) => new UsageError(message), print }),
];

function notFound(message: string): number {
  process.stderr.write(`${message}\n`);
  return 1;
}

function programHelp(): string {
  const usages = COMMANDS.map((c) => `  ${c.usage}`).join('\n');
  return `${INTRO}\n\nUsage: ${PROGRAM} <command> [options]\n\n${usages}\n\n${PROGRAM} <command> --help explains one command.\n`;
}

function commandHelp(command: Command): string {
  return `Usage: ${PROGRAM} ${command.usage}\n\n${command.help}\n`;
}

/** The command named by the leading positionals (the longest match), and what follows it. */
function find(positionals: string[]): { command: Command; args: string[] } | { partial: Command[] } {
  const matches = COMMANDS.filter((c) => c.words.every((w, i) => positionals[i] === w)).sort((a, b) => b.words.length - a.words.length);
  if (matches[0]) return { command: matches[0], args: positionals.slice(matches[0].words.length) };
  return { partial: COMMANDS.filter((c) => positionals.length > 0 && positionals.every((p, i) => c.words[i] === p)) };
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    const message = (error as Error).message;
    const option = /Unknown option '([^']+)'/.exec(message)?.[1];
    throw new UsageError(option ? `unknown option ${option}` : message.split(/\.\s/)[0]!);
  }
  const { values, positionals } = parsed;
  const found = find(positionals);
  if (values.help) {
    process.stdout.write(
      'command' in found ? commandHelp(found.command) : found.partial.length ? found.partial.map(commandHelp).join('\n') : programHelp(),
    );
    return 0;
  }
  if (!('command' in found)) {
    if (positionals.length === 0) throw new UsageError('no command given');
    if (found.partial.length)
      throw new UsageError(`"${positionals.join(' ')}" needs more: ${found.partial.map((c) => c.usage).join(' | ')}`);
    throw new UsageError(`unknown command "${positionals.join(' ')}"`);
  }
  const config = loadConfig();
  const { db, migrate } = await openForOperator(config);
  try {
    if (migrate) await migrateToLatest(db.kysely);
    return await found.command.run({ db, config, values, args: found.args });
  } finally {
    await db.close();
  }
}

/**
 * The database the server uses. The embedded one is one session inside the running service: while the service holds
 * DATA_DIR, the CLI works through its admin socket (the service has migrated it already); otherwise it opens it.
 */
async function openForOperator(config: Config): Promise<{ db: Db; migrate: boolean }> {
  try {
    return { db: await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 }), migrate: true };
  } catch (error) {
    const socket = adminSocketPath(config.dataDir);
    if (!(error instanceof DatabaseInUseError) || !existsSync(socket)) throw error;
    const kysely = adminSocketKysely(socket);
    return { db: { kysely, kind: 'embedded', warm: async () => {}, close: () => kysely.destroy() }, migrate: false };
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message} (see: ${PROGRAM} --help)\n`);
      process.exit(64);
    }
    const known = error instanceof ConfigError || error instanceof ClientInputError || error instanceof DatabaseInUseError;
    process.stderr.write(known ? `${error.message}\n` : `Failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
