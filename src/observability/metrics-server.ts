import cluster from 'node:cluster';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import type { Metrics } from './metrics.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in Prometheus's text format on a listener of its own (METRICS_PORT), never on the API's or the
 * dashboard's: what it tells (routes, volumes, pool waits) is for the operator's scraper, on a port the operator's
 * network exposes to it alone. Anything else there is 404. A cluster's primary answers for every worker
 * (`clusterMetrics`: prom-client asks each over the IPC channel and adds them up, gauges by their own aggregator).
 */
export async function serveMetrics(port: number, host: string, metrics: Metrics | 'cluster'): Promise<MetricsServer> {
  const aggregator = metrics === 'cluster' ? new client.AggregatorRegistry() : undefined;
  const contentType = metrics === 'cluster' ? client.AggregatorRegistry.PROMETHEUS_CONTENT_TYPE : metrics.registry.contentType;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res
        .writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Only GET /metrics is served here.\n');
      return;
    }
    const text = aggregator ? aggregator.clusterMetrics() : (metrics as Metrics).registry.metrics();
    text.then(
      (body) =>
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body),
      (error: unknown) =>
        res
          .writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`The metrics could not be collected: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A cluster worker's metrics, for its primary to collect (prom-client answers the primary's requests). */
export function shareWithPrimary(metrics: Metrics): void {
  if (!cluster.isWorker) return;
  client.AggregatorRegistry.setRegistries([metrics.registry]);
  // prom-client starts answering the primary's requests when an AggregatorRegistry is made, in a worker too.
  new client.AggregatorRegistry();
}
