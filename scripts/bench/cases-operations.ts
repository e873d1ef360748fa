// The operations case of `make bench` (issue 37): a keyed write and a GraphQL read of the service, each against bare
// node:http and plain fastify 5 serving that operation's answer (its status, headers and bytes), in interleaved rounds.
//
// The keyed write is PATCH /v1/webhook-endpoints/{id} setting a description, with a fresh Idempotency-Key on every
// request: it can repeat without end and what it changes does not grow (the account's endpoints, at most 16, each
// updated in place), while the service stores one idempotency record per request, as a client retrying safely makes
// it. Creating orders, ideas or policy versions instead would grow the account's books and meet its quotas mid-run.
// The requests take the account's endpoints in turn, so that 32 connections do not all queue for one row's lock.
import { sql } from 'kysely';
import { ACCOUNT_LIMITS } from '../../src/services/account-limits.js';
import { againstBaselines, measuredText, ROUNDS, sendOnce, type Answer, type Operation, type Round } from './baselines.js';
import { fixed, log, type Bench } from './context.js';
import { request, type Service } from './support.js';

const CONNECTIONS = 32;
const KINDS = ['node', 'fastify'] as const;

/** The brokers with every member GET /v1/brokers answers (the read case's read, through GraphQL). */
export const BROKERS_QUERY =
  '{ brokers { data { id name status markets capabilities { order_types fractional_shares short_selling asset_classes paper live } } next_cursor } }';

export async function operationsCase(bench: Bench, service: Service): Promise<void> {
  const caller = await bench.client(service, ['read', 'write']);
  const headers = { Authorization: `Bearer ${caller.token}`, 'Content-Type': 'application/json' };
  const paths = await webhookEndpoints(service.url, headers);
  const write: Operation = {
    url: `${service.url}${paths[0]}`,
    headers,
    request: { method: 'PATCH', body: JSON.stringify({ description: 'bench' }), keyed: { paths } },
  };
  const keysBefore = await storedKeys(bench, caller.accountId);
  const writeRounds = await compare(bench, service, {
    key: 'keyedWrite',
    name: 'Keyed write (PATCH /v1/webhook-endpoints/{id}, a fresh Idempotency-Key each, 16 endpoints in turn)',
    operation: write,
    answered: (answer) => answer.status === 200,
  });
  // Every answered write left its record (wrk's count of answers is its rate times the time it ran).
  const stored = (await storedKeys(bench, caller.accountId)) - keysBefore;
  const answered = writeRounds.reduce((sum, round) => sum + round.service!.requestsPerSecond * bench.duration, 0);
  if (stored < answered * 0.98)
    throw new Error(`keyed write: ${stored} idempotency records for about ${fixed(answered, 0)} answered writes`);
  const read: Operation = {
    url: `${service.url}/graphql`,
    headers,
    request: { method: 'POST', body: JSON.stringify({ query: BROKERS_QUERY }) },
  };
  await compare(bench, service, {
    key: 'graphqlRead',
    name: 'GraphQL read (POST /graphql, the brokers list)',
    operation: read,
    answered: (answer) => {
      const result = JSON.parse(answer.body) as { data?: { brokers?: { data?: unknown[] } }; errors?: unknown };
      return answer.status === 200 && result.errors === undefined && (result.data?.brokers?.data?.length ?? 0) > 0;
    },
  });
  const results = bench.raw.operations as Record<string, Record<string, unknown>>;
  results.keyedWrite!.idempotencyRecordsStored = stored;
}

/** The account's webhook endpoints, as many as it may hold, disabled (nothing is delivered); their paths. */
export async function webhookEndpoints(url: string, headers: Record<string, string>): Promise<string[]> {
  const paths: string[] = [];
  for (let i = 0; i < ACCOUNT_LIMITS.webhookEndpoints.limit; i++) {
    const created = await request(`${url}/v1/webhook-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `http://127.0.0.1:9/bench-${i}`, event_types: ['order.filled'], enabled: false }),
    });
    if (created.status !== 201) throw new Error(`POST /v1/webhook-endpoints answered ${created.status}: ${created.body}`);
    paths.push(`/v1/webhook-endpoints/${(JSON.parse(created.body) as { id: string }).id}`);
  }
  return paths;
}

async function storedKeys(bench: Bench, accountId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from idempotency_keys where account_id = ${accountId} and operation_id = 'updateWebhookEndpoint'
  `.execute(bench.db.kysely);
  return rows[0]?.n ?? 0;
}

interface Compared {
  /** Its name in the raw results and the log. */
  key: string;
  /** Its name in the table. */
  name: string;
  operation: Operation;
  /** Whether the service's answer is the one to compare (a 2xx with what the operation is for). */
  answered: (answer: Answer) => boolean;
}

/**
 * The operation of the service against node:http and fastify serving the answer it gave (which `answered` accepts),
 * ROUNDS interleaved rounds; rows for the median ratio to each and the CPU per request.
 */
async function compare(bench: Bench, service: Service, compared: Compared): Promise<Round[]> {
  const { key: label, name, operation, answered } = compared;
  const answer = await sendOnce(operation);
  if (!answered(answer)) throw new Error(`${label}: the service answered ${answer.status}: ${answer.body.slice(0, 400)}`);
  const { rounds, vs, cpu } = await againstBaselines(
    label,
    KINDS,
    { pid: service.pid, operation, answer },
    { duration: bench.duration, connections: CONNECTIONS },
  );
  const { node, fastify } = vs;
  const results = (bench.raw.operations ??= {}) as Record<string, unknown>;
  results[label] = {
    ...node.round,
    ratioVsNode: node.ratio,
    ratioVsFastify: fastify.ratio,
    cpuMicrosPerRequest: cpu,
    answerBytes: Buffer.byteLength(answer.body),
    rounds,
  };
  bench.rows.push(
    {
      case: `${name} vs bare node:http, same bytes (${CONNECTIONS} connections, median of ${ROUNDS} rounds)`,
      measured: measuredText(node, 'service', 'node'),
      ratio: node.ratio,
    },
    { case: '… vs plain fastify 5, same bytes', measured: measuredText(fastify, 'service', 'fastify'), ratio: fastify.ratio },
    {
      case: '… server CPU per request, node ÷ service',
      measured: `service ${fixed(cpu.service!, 0)} µs, node ${fixed(cpu.node!, 0)} µs, fastify ${fixed(cpu.fastify!, 0)} µs`,
      ratio: cpu.node! / cpu.service!,
    },
  );
  log(
    `${label}: ${fixed(node.ratio)}× node, ${fixed(fastify.ratio)}× fastify; CPU service ${fixed(cpu.service!, 0)} µs, node ${fixed(cpu.node!, 0)} µs`,
  );
  return rounds;
}
