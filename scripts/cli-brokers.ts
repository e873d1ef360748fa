import type { Db } from '../db/connect.js';
import { realBrokers } from '../src/brokers/connection.js';
import { normalizeEmail } from '../src/auth/passwords.js';
import { systemClock } from '../src/clock.js';
import type { Config } from '../src/config.js';
import { BrokerConnections, type BrokerConnectionView } from '../src/services/broker-connections.js';
import { InvalidInputError, ProblemError } from '../src/services/errors.js';

/** The options the broker commands add to the CLI's. */
export const BROKER_OPTIONS = {
  broker: { type: 'string' },
  'key-id': { type: 'string' },
  'secret-key': { type: 'string' },
  live: { type: 'boolean', default: false },
} as const;

interface Values {
  account?: string;
  broker?: string;
  'key-id'?: string;
  'secret-key'?: string;
  live: boolean;
  json: boolean;
}

interface Kit {
  /** A usage mistake (exit 64). */
  usage(message: string): Error;
  print(json: boolean, value: unknown, text: string): void;
}

interface BrokerCommand {
  words: string[];
  usage: string;
  help: string;
  run(context: { db: Db; config: Config; values: Values; args: string[] }): Promise<number>;
}

/** The service's field names as the command's options. */
const OPTION_OF: Record<string, string> = { broker: '--broker', key_id: '--key-id', secret_key: '--secret-key' };

/** The secret key from its option, or from standard input when the option is `-` (kept out of the shell's history and `ps`). */
async function secretKeyOf(value: string | undefined): Promise<string | undefined> {
  if (value !== '-') return value;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

function describe(email: string, c: BrokerConnectionView): string {
  return [
    `account=${email}`,
    `broker=${c.broker} (${c.live ? 'live' : 'paper'})`,
    `key_id=${c.key_id}`,
    `broker_account_number=${c.broker_account_number}`,
    `connected_at=${c.connected_at}`,
  ].join('\n');
}

/** `broker connect|disconnect|show`: an account's connection to Alpaca, made by an operator as its holder makes it on the Broker page. */
export function brokerCommands(kit: Kit): BrokerCommand[] {
  const connections = (db: Db, config: Config) => new BrokerConnections(db.kysely, systemClock, config.brokers, realBrokers);
  const needs = (value: string | undefined, what: string, words: string[]) => {
    if (!value) throw kit.usage(`${words.join(' ')} needs ${what}`);
    return value;
  };
  /** The account's id; an unknown email is said on stderr (exit 1). */
  const accountOf = async (db: Db, email: string) =>
    (await db.kysely.selectFrom('accounts').select('id').where('email', '=', normalizeEmail(email)).executeTakeFirst())?.id;
  const noAccount = (email: string) => {
    process.stderr.write(`There is no account ${email}.\n`);
    return 1;
  };
  /** A refusal of the service is one line on stderr: a usage mistake (64) for a field, else its message (1). */
  const guarded = async (work: () => Promise<number>): Promise<number> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof InvalidInputError)
        throw kit.usage(error.fields.map((f) => `${OPTION_OF[f.field] ?? f.field} ${f.detail}`).join('; '));
      if (error instanceof ProblemError) {
        process.stderr.write(`${error.detail ?? error.message}\n`);
        return 1;
      }
      throw error;
    }
  };
  return [
    {
      words: ['broker', 'connect'],
      usage: 'broker connect --account EMAIL --broker alpaca --key-id ID --secret-key SECRET|- [--live] [--json]',
      help: [
        'Connects the account to its Alpaca account: the keys are checked with Alpaca (GET /v2/account) and kept, the secret key',
        "encrypted with BROKER_CREDENTIALS_KEY (which must be set, the same as the service's). An earlier connection is replaced.",
        '--secret-key - reads the secret key from standard input. --live needs ALPACA_LIVE_ENABLED=true.',
        'Prints the connection (never the secret key).',
      ].join(' '),
      run({ db, config, values }) {
        return guarded(async () => {
          const email = needs(values.account, '--account EMAIL', this.words);
          const input = {
            broker: needs(values.broker, '--broker alpaca', this.words),
            keyId: needs(values['key-id'], '--key-id ID', this.words),
            secretKey: needs(
              await secretKeyOf(values['secret-key']),
              '--secret-key SECRET (or - to read it from standard input)',
              this.words,
            ),
            live: values.live,
          };
          const accountId = await accountOf(db, email);
          if (!accountId) return noAccount(email);
          const connection = await connections(db, config).connect(accountId, input);
          kit.print(
            values.json,
            connection,
            `${describe(email, connection)}\n(the keys were checked with Alpaca; the secret key is stored encrypted)`,
          );
          return 0;
        });
      },
    },
    {
      words: ['broker', 'disconnect'],
      usage: 'broker disconnect --account EMAIL [--json]',
      help: "Ends the account's broker connection and deletes its keys; its orders go to the built-in paper broker again.",
      run({ db, config, values }) {
        return guarded(async () => {
          const email = needs(values.account, '--account EMAIL', this.words);
          const accountId = await accountOf(db, email);
          if (!accountId) return noAccount(email);
          const ended = await connections(db, config).disconnect(accountId);
          kit.print(
            values.json,
            { disconnected: ended !== undefined, connection: ended ?? null },
            ended
              ? `disconnected ${email} from ${ended.broker} (key id ${ended.key_id}); its keys were deleted`
              : `${email} was not connected to a broker`,
          );
          return 0;
        });
      },
    },
    {
      words: ['broker', 'show'],
      usage: 'broker show --account EMAIL [--json]',
      help: "Shows the account's broker connection (broker, paper or live, key id, broker account number, when): never the secret key.",
      run({ db, config, values }) {
        return guarded(async () => {
          const email = needs(values.account, '--account EMAIL', this.words);
          const accountId = await accountOf(db, email);
          if (!accountId) return noAccount(email);
          const connection = await connections(db, config).connectionOf(accountId);
          kit.print(
            values.json,
            connection ?? null,
            connection ? describe(email, connection) : `${email} is not connected to a broker (its orders go to the built-in paper broker)`,
          );
          return 0;
        });
      },
    },
  ];
}
