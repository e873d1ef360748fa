// Where a request's server CPU goes, stage by stage of the pipeline, from a V8 CPU profile (.cpuprofile) taken under
// load (scripts/bench/profile-read.ts). Each sample goes to one stage: to the database when any frame of its stack is
// the database driver's (its socket writes included), else to the first stage that claims a frame, from the sampled
// function outwards (so JSON.stringify, a built-in, counts where it was called: the reply). The profiler's own cost
// inflates every stage alike (about a tenth): the shares are what to read; the µs are the profiled process's.

export interface Frame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

const inUrl = (pattern: RegExp) => (frame: Frame) => pattern.test(frame.url);
const named = (pattern: RegExp) => (frame: Frame) => pattern.test(frame.functionName) && frame.url === '';

/** The stages in the order they are tried on each frame; the last, the rest: Node's HTTP parser, timers, the event loop. */
const STAGES: [string, (frame: Frame) => boolean][] = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['socket writes (the answer)', named(/^(writev|writeUtf8String|writeLatin1String|writeBuffer)$/)],
  ['log line (pino)', (f) => /\/(pino|sonic-boom)\/|node:fs/.test(f.url) || (f.functionName === 'done' && f.url.includes('request-log'))],
  ['request start (id, state, listeners)', inUrl(/dist\/src\/http\/request-log\.js|node:internal\/crypto\/random/)],
  ['tracing and metrics', inUrl(/dist\/src\/observability\//)],
  ['rate limits', inUrl(/dist\/src\/(http\/rate-limit|counters\/)|express-rate-limit|refusal-pacing/)],
  ['authenticate (token, client status)', inUrl(/dist\/src\/(auth\/tokens|services\/clients|services\/read-through)\.js/)],
  ['authorize', inUrl(/dist\/src\/auth\//)],
  ['reply (serialize, headers, compression)', inUrl(/dist\/src\/contract\/serializers\.js|\/fast-json-stringify\//)],
  ['validate (contract, ajv)', inUrl(/dist\/src\/contract\/|\/ajv\//)],
  ['route', inUrl(/dist\/src\/http\/routes\.js/)],
  ['idempotency key', inUrl(/dist\/src\/application\/idempotency/)],
  ['GraphQL (parse, validate, execute)', inUrl(/\/graphql(-http)?\/|dist\/src\/graphql\//)],
  ['use case', inUrl(/dist\/(src\/services|src\/application\/use-cases|handlers)\//)],
  ['pipeline (steps, outcome)', inUrl(/dist\/src\/application\//)],
  ['reply (serialize, headers, compression)', inUrl(/dist\/src\/http\/(reply|compression|errors|deprecation)\.js|node:_http_outgoing/)],
  ['REST adapter', inUrl(/dist\/src\/(http|app|server)\b/)],
  ['express (router, req/res helpers)', inUrl(/\/(express|router|proxy-addr|forwarded|negotiator|accepts|parseurl|type-is)\//)],
];
const DATABASE = /\/(pg|pg-pool|pg-protocol|pg-types|kysely)\/|dist\/db\//;
const REST = 'Node (HTTP parser, event loop, the rest)';

/**
 * Microseconds per request by stage (in STAGES' order, the rest last), over the profile's last `seconds` (the measured
 * load, which ends as the process is stopped: its start-up and warm-up are left out).
 */
export function stages(
  profile: CpuProfile,
  requests: number,
  seconds: number,
  /** A stage whose sampled functions to tell `onSample` of (which functions a stage's time is in). */
  detail?: { stage: string; onSample: (frame: Frame, micros: number) => void },
): { stage: string; micros: number; share: number }[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stageOf = new Map<number, string>();
  const classify = (id: number): string => {
    let stage = stageOf.get(id);
    if (stage !== undefined) return stage;
    const frames: Frame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame);
    if (frames.some((frame) => DATABASE.test(frame.url))) stage = 'database (pg, kysely)';
    else stage = frames.map((frame) => STAGES.find(([, claims]) => claims(frame))?.[0]).find((s) => s !== undefined) ?? REST;
    stageOf.set(id, stage);
    return stage;
  };
  const totals = new Map<string, number>();
  const end = profile.timeDeltas.reduce((sum, delta) => sum + delta, profile.startTime);
  let at = profile.startTime;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < end - seconds * 1e6 || byId.get(id)!.callFrame.functionName === '(idle)') return;
    const stage = classify(id);
    totals.set(stage, (totals.get(stage) ?? 0) + delta);
    if (detail?.stage === stage) detail.onSample(byId.get(id)!.callFrame, delta / requests);
    busy += delta;
  });
  const order = [...new Set(STAGES.map(([stage]) => stage)), 'database (pg, kysely)', REST];
  return order
    .filter((stage) => totals.has(stage))
    .map((stage) => ({ stage, micros: totals.get(stage)! / requests, share: totals.get(stage)! / busy }));
}

/** The stages as a Markdown table, with the total. */
export function stageTable(rows: { stage: string; micros: number; share: number }[]): string {
  const total = rows.reduce((sum, row) => sum + row.micros, 0);
  return [
    '| stage | µs per request | share |',
    '| --- | ---: | ---: |',
    ...rows.map((row) => `| ${row.stage} | ${row.micros.toFixed(1)} | ${(100 * row.share).toFixed(1)} % |`),
    `| **total (busy)** | **${total.toFixed(1)}** | 100 % |`,
  ].join('\n');
}
