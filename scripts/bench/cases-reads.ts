// The read cases of `make bench`: the service's throughput on an authenticated read against node:http, fastify and
// express serving the same bytes, its memory and what a request promotes to the old generation, and one worker
// against two.
import { againstBaselines, BASELINES, measuredText, ROUNDS, sendOnce, type Operation } from './baselines.js';
import { fixed, log, type Bench, type Reading } from './context.js';
import { throughput } from './load.js';
import { request, rssMiB, startService } from './support.js';

const CLUSTER_CONNECTIONS = Number(process.env.CLUSTER_CONNECTIONS ?? 64);

/** The bench's connections for the read against its baselines (issue 37: wrk, one thread, 32 connections). */
const READ_CONNECTIONS = 32;

/** Checks that the read answers 200 and warms the service up (JIT, pools) for the cases that load it. */
export async function warmRead(reading: Reading): Promise<void> {
  const { readUrl, auth } = reading;
  const sample = await request(readUrl, { headers: auth });
  if (sample.status !== 200) throw new Error(`GET /v1/brokers answered ${sample.status}: ${sample.body}`);
  await throughput(readUrl, { headers: auth, duration: 2 });
}

/** The issue's target for a ratio to a baseline: at least 0.6× (0.8× the stretch). */
const target = (ratio: number) => ({ ratio, target: '≥ 0.6× (stretch 0.8×)', met: ratio >= 0.6 });

/**
 * The authenticated read against bare node:http, plain fastify 5 and plain express 5 serving its bytes, each in a
 * process of its own started once, in ROUNDS interleaved rounds; each ratio is its median round's. CPU per read is
 * the median round's too: throughput depends on what else the cores are doing, server CPU per request much less so.
 */
export async function readCase(bench: Bench, reading: Reading): Promise<void> {
  const { rows, raw, duration } = bench;
  const { single, readUrl, auth } = reading;
  const operation: Operation = { url: readUrl, headers: auth };
  const answer = await sendOnce(operation);
  const { rounds, vs, cpu } = await againstBaselines(
    'read',
    BASELINES,
    { pid: single.pid, operation, answer },
    { duration, connections: READ_CONNECTIONS },
  );
  raw.read = {
    connections: READ_CONNECTIONS,
    // The round of the median ratio to node:http; every round's numbers are in `rounds`.
    ...vs.node.round,
    ratioVsNode: vs.node.ratio,
    ratioVsFastify: vs.fastify.ratio,
    ratioVsExpress: vs.express.ratio,
    cpuMicrosPerRequest: cpu,
    cpuRatioVsNode: cpu.node! / cpu.service!,
    cpuRatioVsExpress: cpu.express! / cpu.service!,
    rounds,
  };
  const name = `Authenticated validated read (GET /v1/brokers, wrk ${READ_CONNECTIONS} connections, median of ${ROUNDS} interleaved rounds)`;
  rows.push(
    { case: `${name} vs bare node:http, same bytes`, measured: measuredText(vs.node, 'service', 'node'), ...target(vs.node.ratio) },
    { case: '… vs plain fastify 5, same bytes', measured: measuredText(vs.fastify, 'service', 'fastify'), ...target(vs.fastify.ratio) },
    { case: '… vs plain express 5, same bytes', measured: measuredText(vs.express, 'service', 'express'), ratio: vs.express.ratio },
    {
      case: '… server CPU per read, node ÷ service (1 = as cheap as bare node:http)',
      measured: `service ${fixed(cpu.service!, 0)} µs, node ${fixed(cpu.node!, 0)} µs (fastify ${fixed(cpu.fastify!, 0)}, express ${fixed(cpu.express!, 0)})`,
      ratio: cpu.node! / cpu.service!,
    },
  );
  log(`read: ${BASELINES.map((kind) => `${fixed(vs[kind].ratio)}× ${kind}`).join(', ')}; CPU per read ${fixed(cpu.service!, 0)} µs`);
}

export async function memoryCase(bench: Bench, reading: Reading): Promise<void> {
  const { rows, raw, database } = bench;
  const { single, reader, readUrl, auth } = reading;
  // After a warm-up (JIT, pools, caches and V8's heap reach their working size), then after 100k more requests.
  await throughput(readUrl, { headers: auth, amount: 20_000, connections: 10 });
  const before = rssMiB(single.pid);
  await throughput(readUrl, { headers: auth, amount: 100_000, connections: 10 });
  const after = rssMiB(single.pid);
  raw.memory = { rssBeforeMiB: before, rssAfter100kMiB: after };
  rows.push({
    case: 'Memory (RSS) after 100k authenticated reads vs after a 20k warm-up',
    measured: `${fixed(before, 0)} → ${fixed(after, 0)} MiB`,
    ratio: after / before,
    target: 'bounded (no growth per request)',
    met: after / before < 1.5,
  });
  log(`memory: ${fixed(before, 0)} MiB → ${fixed(after, 0)} MiB after 100k requests`);

  // What each request leaves to the old generation, as V8's young collections report it (--trace-gc-nvp on the
  // service's stdout, beside its request log). A request's objects should die young; kept alive past two young
  // collections (a prototype changed per request, a literal's per-request getters) they cost kilobytes each and full
  // collections with them (BENCHMARKS.md, why the code is as it is).
  const traced = await startService(database.url, {}, ['--trace-gc-nvp']);
  const tracedUrl = `${traced.url}/v1/brokers`;
  const tracedAuth = { Authorization: `Bearer ${await reader.tokenFor(traced)}` };
  let counting = false;
  let promoted = 0;
  let partial = '';
  traced.child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    if (!counting) return;
    for (const line of lines) if (/\bgc=s\b/.test(line)) promoted += Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0);
  });
  await throughput(tracedUrl, { headers: tracedAuth, amount: 20_000, connections: 10 });
  counting = true;
  const PROMOTION_REQUESTS = 50_000;
  await throughput(tracedUrl, { headers: tracedAuth, amount: PROMOTION_REQUESTS, connections: 10 });
  counting = false;
  await traced.stop();
  const perRequest = promoted / PROMOTION_REQUESTS;
  raw.promotion = { requests: PROMOTION_REQUESTS, promotedBytes: promoted, bytesPerRequest: perRequest };
  rows.push({
    case: 'Bytes promoted to the old generation per authenticated read (V8 young collections, 50k reads)',
    measured: `${fixed(perRequest, 0)} B`,
    target: '≤ 1 KB (request objects die young)',
    met: perRequest <= 1024,
  });
  log(`promotion: ${fixed(perRequest, 0)} B per request`);
}

export async function clusterCase(bench: Bench, reading: Reading): Promise<void> {
  const { rows, raw, database, duration } = bench;
  const { single, reader, readUrl, auth } = reading;
  // The same load on one worker and on two, both running, measured in turn three times: the machine's load drifts
  // between runs, so the ratio is each round's and the median round is the one reported. 64 connections, as a
  // balancer with clients enough for two workers would keep open: with 20, wrk's one thread wakes for fewer answers
  // at a time and costs more per request on the cores the workers share, which lowers the ratio.
  const two = await startService(database.url, { WEB_CONCURRENCY: '2' });
  const url = `${two.url}/v1/brokers`;
  const twoAuth = { Authorization: `Bearer ${await reader.tokenFor(two)}` };
  await throughput(url, { headers: twoAuth, duration: 4, connections: CLUSTER_CONNECTIONS });
  const rounds: { one: Awaited<ReturnType<typeof throughput>>; two: Awaited<ReturnType<typeof throughput>>; ratio: number }[] = [];
  for (let round = 0; round < 3; round++) {
    const one = await throughput(readUrl, { headers: auth, duration, connections: CLUSTER_CONNECTIONS, pid: single.pid });
    const clustered = await throughput(url, { headers: twoAuth, duration, connections: CLUSTER_CONNECTIONS, pid: two.pid });
    if (clustered.non2xx > 0 || one.non2xx > 0)
      throw new Error(`cluster: ${one.non2xx + clustered.non2xx} answers were not 2xx:\n${[...single.notable, ...two.notable].join('\n')}`);
    rounds.push({ one, two: clustered, ratio: clustered.requestsPerSecond / one.requestsPerSecond });
    log(
      `cluster: round ${round + 1}: 1 worker ${fixed(one.requestsPerSecond, 0)} req/s, 2 workers ${fixed(clustered.requestsPerSecond, 0)} req/s`,
    );
  }
  await two.stop();
  const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[1]!;
  raw.cluster = { ...median, rounds: rounds.map((r) => r.ratio) };
  rows.push({
    case: `WEB_CONCURRENCY=2 vs 1 (same read, ${CLUSTER_CONNECTIONS} connections, load generator on the same 2 cores; median of 3 rounds)`,
    measured: `${fixed(median.two.requestsPerSecond, 0)} vs ${fixed(median.one.requestsPerSecond, 0)} req/s`,
    ratio: median.ratio,
    target: '≥ 1.4×',
    met: median.ratio >= 1.4,
  });
  log(`cluster: 2 workers ${fixed(median.ratio)}× one (rounds ${rounds.map((r) => fixed(r.ratio)).join(', ')})`);
}
