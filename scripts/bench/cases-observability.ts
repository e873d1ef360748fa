// The observability case of `make bench` (issue 35): what Prometheus metrics and OpenTelemetry tracing cost the
// authenticated read, as a ratio to the same service without them, measured in interleaved rounds in one run.
import { fork } from 'node:child_process';
import { fixed, log, type Bench, type Reading } from './context.js';
import { throughput, type Throughput } from './load.js';
import { freePort, startService, track } from './support.js';

/**
 * The services compared with the plain one (`reading.single`): metrics on (METRICS_PORT) and tracing exported over
 * OTLP/HTTP to a collector of the bench's own. Parent-based sampling, the read arriving without a trace: the caller
 * decides (`parentbased_always_off`: traced when the caller's trace is sampled) — the target's configuration; and
 * every read the root of a sampled, exported trace (`parentbased_always_on`, OpenTelemetry's default), for the record.
 */
const SAMPLERS = [
  { sampler: 'parentbased_always_off', label: 'metrics + tracing, parent-based (reads arrive untraced)', target: true },
  { sampler: 'parentbased_always_on', label: 'metrics + tracing, every read a sampled trace', target: false },
] as const;

const PAIRS = 9;

export async function observabilityCase(bench: Bench, reading: Reading): Promise<void> {
  const { rows, raw, database, duration } = bench;
  const { single, reader, readUrl, auth } = reading;
  const sink = fork('scripts/bench/otlp-sink.mjs', { stdio: 'inherit' });
  track(sink);
  const sinkPort = await new Promise<number>((resolve) => sink.once('message', (m) => resolve((m as { port: number }).port)));
  const results: Record<string, unknown> = {};
  try {
    for (const { sampler, label, target } of SAMPLERS) {
      const observed = await startService(database.url, {
        METRICS_PORT: String(await freePort()),
        OTEL_SERVICE_NAME: 'ias-bench',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_TRACES_SAMPLER: sampler,
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
      });
      const url = `${observed.url}/v1/brokers`;
      const observedAuth = { Authorization: `Bearer ${await reader.tokenFor(observed)}` };
      await throughput(url, { headers: observedAuth, duration: 2 }); // warm-up (JIT, pools)
      // Plain and observed side by side in PAIRS pairs of short runs, each pair's order the other way from the last: the
      // ratio is the median pair's. Throughput here drifts by ±10 % and more from one run to the next (the same service,
      // an idle machine); a pair's two runs are seconds apart, and the median leaves out the pairs a burst of the
      // machine's own work fell on.
      const plain: Throughput[] = [];
      const traced: Throughput[] = [];
      const pairRatios: number[] = [];
      const seconds = Math.max(2, Math.round(duration / 3));
      for (let pair = 0; pair < PAIRS; pair++) {
        const order = pair % 2 === 0 ? (['plain', 'observed'] as const) : (['observed', 'plain'] as const);
        const runs: Partial<Record<'plain' | 'observed', Throughput>> = {};
        for (const which of order)
          runs[which] =
            which === 'plain'
              ? await throughput(readUrl, { headers: auth, duration: seconds, pid: single.pid })
              : await throughput(url, { headers: observedAuth, duration: seconds, pid: observed.pid });
        plain.push(runs.plain!);
        traced.push(runs.observed!);
        pairRatios.push(runs.observed!.requestsPerSecond / runs.plain!.requestsPerSecond);
      }
      const rate = (runs: Throughput[]) => runs.reduce((sum, r) => sum + r.requestsPerSecond, 0) / runs.length;
      const cpu = (runs: Throughput[]) => runs.reduce((sum, r) => sum + (r.cpuMicrosPerRequest ?? 0), 0) / runs.length;
      const ratio = [...pairRatios].sort((a, b) => a - b)[Math.floor(PAIRS / 2)]!;
      results[sampler] = { plain, observed: traced, pairRatios, ratio };
      rows.push({
        case: `Authenticated read with ${label} vs without (OTLP/HTTP protobuf to a local collector; median of 9 interleaved pairs)`,
        measured: `${fixed(rate(traced), 0)} vs ${fixed(rate(plain), 0)} req/s; ${fixed(cpu(traced), 0)} vs ${fixed(cpu(plain), 0)} µs CPU`,
        ratio,
        ...(target ? { target: '≥ 0.9×', met: ratio >= 0.9 } : {}),
      });
      log(`observability: ${sampler}: ${fixed(ratio)}× (pairs ${pairRatios.map((r) => fixed(r)).join(', ')})`);
    }
    results.collector = await new Promise((resolve) => {
      sink.once('message', resolve);
      sink.send('collect');
    });
  } finally {
    sink.kill();
  }
  raw.observability = results;
}
