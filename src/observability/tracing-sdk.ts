import { register } from 'node:module';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { tracingStarted } from './tracing.js';

/**
 * Starts OpenTelemetry's SDK for Node (loaded by main.ts only when the OTEL_* variables ask for traces, before the
 * service's modules are imported, so that the instrumentations patch `node:http` (its outgoing calls), pg and undici as they load;
 * the webhook thread starts one without them, `instrument: false`, for its deliveries' own spans).
 * The SDK reads its own variables: exporter, endpoint, protocol (`http/protobuf`, `http/json`, `grpc`), headers,
 * sampler (parent-based, always on, unless OTEL_TRACES_SAMPLER says otherwise), batch delays, resource attributes. Only
 * traces: metrics are Prometheus's (METRICS_PORT) and logs are the service's own lines, so neither is exported here.
 */
export async function startTracing({ instrument }: { instrument: boolean }): Promise<void> {
  // The service is ES modules: an import hook lets the instrumentations patch what is imported (CommonJS requires are
  // patched by require-in-the-middle). It intercepts only the modules they name.
  const hooks = instrument ? createAddHookMessageChannel() : undefined;
  if (hooks) register('import-in-the-middle/hook.mjs', import.meta.url, hooks.registerOptions);
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read by the SDK, come over this.
    resource: resources.defaultResource().merge(resources.resourceFromAttributes({ 'service.name': 'investment-automation-service' })),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: instrument ? instrumentations() : [],
  });
  sdk.start();
  // The import hook runs on a thread of its own: it knows the modules to intercept before the service is imported.
  await hooks?.waitForAllMessagesAcknowledged();
  tracingStarted({ stop: () => sdk.shutdown() });
}

function instrumentations() {
  return [
    new HttpInstrumentation({
      // Incoming requests' server spans are the service's own (startServerTrace in tracing.ts: only a sampled request
      // enters a context). Outgoing calls are traced inside a request's trace (a broker, a webhook sent on this
      // thread), not on their own.
      disableIncomingRequestInstrumentation: true,
      requireParentforOutgoingSpans: true,
    }),
    // Statements without their values (they hold secrets and personal data); queries outside a request are not traced.
    new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    new UndiciInstrumentation({ requireParentforSpans: true }),
  ];
}
