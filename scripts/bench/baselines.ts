// How `make bench` compares an operation of the service with baselines serving the same answer: each baseline in a
// process of its own, checked to answer the same status, headers and bytes, and all measured in interleaved rounds
// (the machine's load drifts between runs, so each ratio is a round's and the median round's is the one reported).
import { randomUUID } from 'node:crypto';
import { fixed, log } from './context.js';
import { throughput, type LoadRequest, type Throughput } from './load.js';
import { request, startBaseline, type BaselineKind, type Service } from './support.js';

export const ROUNDS = 3;

/** The baselines, in the order each round measures them (after the service). */
export const BASELINES = ['node', 'fastify', 'express'] as const satisfies readonly BaselineKind[];

/** What the operation's request sends: where, with which headers and (not a GET) which method and body. */
export interface Operation {
  url: string;
  headers: Record<string, string>;
  request?: LoadRequest;
}

export type Answer = Awaited<ReturnType<typeof request>>;

/** Headers every server sets for itself on the way out; the bytes a server chose are compared in full. */
const PER_ANSWER = new Set(['date']);

/** The headers a client sees on an answer, minus those every server sets itself (date, length, connection). */
function replayableHeaders(headers: Answer['headers']): Record<string, string> {
  const skip = new Set(['date', 'content-length', 'connection', 'keep-alive', 'transfer-encoding']);
  return Object.fromEntries(
    Object.entries(headers).filter(([name, value]) => !skip.has(name) && typeof value === 'string') as [string, string][],
  );
}

/** Where `got` differs from `expected` in status, headers (any name's case, but not the date) or body bytes. */
function differences(expected: Answer, got: Answer): string[] {
  const found: string[] = [];
  if (got.status !== expected.status) found.push(`status ${got.status}, not ${expected.status}`);
  if (got.body !== expected.body) found.push(`body ${JSON.stringify(got.body.slice(0, 80))}…`);
  const names = new Set([...Object.keys(expected.headers), ...Object.keys(got.headers)]);
  for (const name of names) {
    if (PER_ANSWER.has(name)) continue;
    const [want, have] = [expected.headers[name], got.headers[name]];
    if (JSON.stringify(want) !== JSON.stringify(have)) found.push(`${name}: ${String(have)} (the service: ${String(want)})`);
  }
  return found;
}

/** One request of the operation, as wrk sends it (a keyed one with a key of its own). */
export function sendOnce(operation: Operation, url = operation.url): Promise<Answer> {
  const { method = 'GET', body, keyed } = operation.request ?? {};
  const target = keyed ? new URL(keyed.paths[0]!, url).toString() : url;
  const key: Record<string, string> = keyed ? { 'Idempotency-Key': `probe-${randomUUID()}` } : {};
  return request(target, { method, body, headers: { ...operation.headers, ...key } });
}

/**
 * Each of `kinds` serving `answer` (the service's), in a process of its own; refuses to go on if one answers the
 * operation with other bytes than the service did.
 */
async function startBaselines(kinds: readonly BaselineKind[], operation: Operation, answer: Answer): Promise<Map<BaselineKind, Service>> {
  const started = new Map<BaselineKind, Service>();
  for (const kind of kinds) {
    const baseline = await startBaseline(kind, answer.body, replayableHeaders(answer.headers), answer.status);
    started.set(kind, baseline);
    const found = differences(answer, await sendOnce(operation, rebase(operation.url, baseline)));
    if (found.length > 0) {
      await Promise.all([...started.values()].map((s) => s.stop()));
      throw new Error(`the ${kind} baseline does not answer as the service does: ${found.join('; ')}`);
    }
  }
  return started;
}

/** `url`'s path and query on `server`. */
function rebase(url: string, server: { url: string }): string {
  const { pathname, search } = new URL(url);
  return `${server.url}${pathname}${search}`;
}

/** A server in the comparison: the service or a baseline, with the operation as it is sent to it. */
interface Contender {
  name: string;
  pid: number;
  operation: Operation;
}

export type Round = Record<string, Throughput>;

/**
 * ROUNDS rounds, each measuring every contender in turn (`duration` seconds, `connections` connections), after a
 * 2-second warm-up of each. Every answer must be 2xx and every connection last: anything else ends the run.
 */
async function interleavedRounds(label: string, contenders: Contender[], duration: number, connections: number): Promise<Round[]> {
  const measure = ({ operation, pid }: Contender, seconds: number, withPid: boolean) =>
    throughput(operation.url, {
      headers: operation.headers,
      request: operation.request,
      duration: seconds,
      connections,
      ...(withPid ? { pid } : {}),
    });
  for (const contender of contenders) await measure(contender, 2, false);
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const results: Round = {};
    for (const contender of contenders) {
      const result = await measure(contender, duration, true);
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(
          `${label}: ${contender.name} answered ${result.non2xx} non-2xx, ${result.errors} socket errors in round ${round + 1}`,
        );
      }
      results[contender.name] = result;
    }
    rounds.push(results);
    log(
      `${label}: round ${round + 1}: ${contenders.map((c) => `${c.name} ${fixed(results[c.name]!.requestsPerSecond, 0)} req/s`).join(', ')}`,
    );
  }
  return rounds;
}

export type Median = ReturnType<typeof medianRatio>;

/**
 * The service (`pid`) on `operation` against each of `kinds` serving `answer` (the service's own answer to it): the
 * rounds, each baseline's median ratio and every contender's median CPU per request.
 */
export async function againstBaselines<Kind extends BaselineKind>(
  label: string,
  kinds: readonly Kind[],
  service: { pid: number; operation: Operation; answer: Answer },
  load: { duration: number; connections: number },
): Promise<{ rounds: Round[]; vs: Record<Kind, Median>; cpu: Record<string, number> }> {
  const { operation, answer } = service;
  const baselines = await startBaselines(kinds, operation, answer);
  const contenders: Contender[] = [
    { name: 'service', pid: service.pid, operation },
    ...[...baselines].map(([name, server]) => ({ name, pid: server.pid, operation: { ...operation, url: rebase(operation.url, server) } })),
  ];
  let rounds: Round[];
  try {
    rounds = await interleavedRounds(label, contenders, load.duration, load.connections);
  } finally {
    await Promise.all([...baselines.values()].map((server) => server.stop()));
  }
  const vs = Object.fromEntries(kinds.map((kind) => [kind, medianRatio(rounds, 'service', kind)])) as Record<Kind, Median>;
  const cpu = Object.fromEntries(contenders.map(({ name }) => [name, medianCpu(rounds, name)]));
  return { rounds, vs, cpu };
}

/** The ratio of `subject`'s throughput to `baseline`'s in each round, and the round whose ratio is the median. */
function medianRatio(rounds: Round[], subject: string, baseline: string) {
  const ratios = rounds.map((r) => r[subject]!.requestsPerSecond / r[baseline]!.requestsPerSecond);
  const index = ratios.indexOf([...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!);
  return { ratio: ratios[index]!, ratios, round: rounds[index]! };
}

/** The median over the rounds of a contender's server CPU per request, in µs. */
function medianCpu(rounds: Round[], name: string): number {
  const values = rounds.map((r) => r[name]!.cpuMicrosPerRequest ?? NaN).sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)]!;
}

/** "a vs b req/s (rounds 0.21×, 0.22×, 0.20×)" for a row's measured column. */
export function measuredText(median: Median, subject: string, baseline: string): string {
  const [a, b] = [median.round[subject]!.requestsPerSecond, median.round[baseline]!.requestsPerSecond];
  return `${fixed(a, 0)} vs ${fixed(b, 0)} req/s (rounds ${median.ratios.map((r) => `${fixed(r)}×`).join(', ')})`;
}
