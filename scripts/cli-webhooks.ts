import type { Db } from '../db/connect.js';
import { systemClock } from '../src/clock.js';
import type { Config } from '../src/config.js';
import { InvalidInputError, NotFoundError } from '../src/services/errors.js';
import { EVENT_TYPES } from '../src/services/events/outbox.js';
import { Store } from '../src/services/store.js';
import { WebhookEndpoints } from '../src/services/webhooks/endpoints.js';

/** The options the webhook commands add to the CLI's. */
export const WEBHOOK_OPTIONS = {
  url: { type: 'string' },
  events: { type: 'string' },
  description: { type: 'string' },
} as const;

interface Values {
  account?: string;
  url?: string;
  events?: string;
  description?: string;
  json: boolean;
}

interface Kit {
  /** A usage mistake (exit 64). */
  usage(message: string): Error;
  print(json: boolean, value: unknown, text: string): void;
}

interface WebhookCommand {
  words: string[];
  usage: string;
  help: string;
  run(context: { db: Db; config: Config; values: Values; args: string[] }): Promise<number>;
}

/** `webhook add|list|remove|deliveries`: endpoints managed by an operator, as a signed-in human does in the dashboard. */
export function webhookCommands(kit: Kit): WebhookCommand[] {
  const endpoints = (db: Db, config: Config) =>
    new WebhookEndpoints(new Store(db.kysely), systemClock, {
      allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
      retentionDays: config.eventRetentionDays,
    });
  const needs = (value: string | undefined, what: string, words: string[]) => {
    if (!value) throw kit.usage(`${words.join(' ')} needs ${what}`);
    return value;
  };
  /** Refusals of the service are a usage mistake (a bad URL, an unknown type) or a missing thing, each one line. */
  const guarded = async (work: () => Promise<number>): Promise<number> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof InvalidInputError)
        throw kit.usage(error.fields.map((f) => `--${f.field === 'event_types' ? 'events' : f.field} ${f.detail}`).join('; '));
      if (error instanceof NotFoundError) {
        process.stderr.write(`${error.message}\n`);
        return 1;
      }
      throw error;
    }
  };
  return [
    {
      words: ['webhook', 'add'],
      usage: 'webhook add --account EMAIL --url URL --events a,b [--description TEXT] [--json]',
      help: [
        'Adds a webhook endpoint to the account and prints its id and signing secret (whsec_..., shown in full only here and in the dashboard when made).',
        `Events: ${EVENT_TYPES.join(', ')}.`,
        'URLs are https:// to public addresses unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true.',
      ].join(' '),
      run({ db, config, values }) {
        return guarded(async () => {
          const service = endpoints(db, config);
          const accountId = await service.accountOf(needs(values.account, '--account EMAIL', this.words));
          const endpoint = await service.create(accountId, {
            url: needs(values.url, '--url URL', this.words),
            eventTypes: needs(values.events, '--events a,b', this.words).split(','),
            description: values.description,
          });
          kit.print(
            values.json,
            endpoint,
            `id=${endpoint.id}\nsecret=${endpoint.secret}\n(sign-verify deliveries with this secret; keep it in your receiver's secret store)`,
          );
          return 0;
        });
      },
    },
    {
      words: ['webhook', 'list'],
      usage: 'webhook list --account EMAIL [--json]',
      help: "Lists the account's webhook endpoints with their event types and state.",
      run({ db, config, values }) {
        return guarded(async () => {
          const service = endpoints(db, config);
          const list = await service.list({ accountId: await service.accountOf(needs(values.account, '--account EMAIL', this.words)) });
          kit.print(
            values.json,
            list,
            list
              .map((e) => `${e.id}\t${e.enabled ? 'enabled' : `disabled (${e.disabled_reason})`}\t${e.url}\t${e.event_types.join(',')}`)
              .join('\n') || '(no endpoints)',
          );
          return 0;
        });
      },
    },
    {
      words: ['webhook', 'remove'],
      usage: 'webhook remove ENDPOINT_ID [--json]',
      help: 'Deletes the endpoint, its pending deliveries and their log.',
      run({ db, config, values, args }) {
        return guarded(async () => {
          const id = needs(args[0], 'an ENDPOINT_ID', this.words);
          await endpoints(db, config).remove('operator', id);
          kit.print(values.json, { id, removed: true }, `removed ${id}`);
          return 0;
        });
      },
    },
    {
      words: ['webhook', 'deliveries'],
      usage: 'webhook deliveries ENDPOINT_ID [--json]',
      help: "The endpoint's latest 50 deliveries: event, type, state, attempts, last status code and latency, next retry.",
      run({ db, config, values, args }) {
        return guarded(async () => {
          const list = await endpoints(db, config).deliveries('operator', needs(args[0], 'an ENDPOINT_ID', this.words));
          kit.print(
            values.json,
            list,
            list
              .map(
                (d) =>
                  `${d.id}\t${d.event_id}\t${d.type}\t${d.status}\tattempts=${d.attempts}\tstatus=${d.last_status_code ?? '-'}\t` +
                  `${d.last_latency_ms ?? '-'} ms${d.next_attempt_at ? `\tnext=${d.next_attempt_at}` : ''}${d.last_error ? `\t${d.last_error}` : ''}`,
              )
              .join('\n') || '(no deliveries)',
          );
          return 0;
        });
      },
    },
  ];
}
