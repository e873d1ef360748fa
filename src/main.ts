// The service's entry (`node dist/src/main.js`, and each cluster worker, which runs this file again). OpenTelemetry's
// SDK starts first when the OTEL_* variables ask for traces: its instrumentations patch node:http, express and pg as
// they are imported, so nothing of the service may be imported before it (the service is process.ts, imported after).
// Without those variables the SDK is never loaded.
import { ConfigError, tracingRequested } from './env.js';

let tracing = false;
try {
  tracing = tracingRequested(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Configuration error: ${error.message}`);
  process.exit(78);
}

try {
  if (tracing) await (await import('./observability/tracing-sdk.js')).startTracing({ instrument: true });
  await (await import('./process.js')).runProcess();
} catch (error) {
  console.error(`Failed to start: ${(error as Error).message}`);
  process.exit(1);
}
