import * as accounts from './accounts.js';
import * as meta from './meta.js';
import * as oauth from './oauth.js';
import * as policies from './policies.js';
import * as reports from './reports.js';
import * as webhookEndpoints from './webhook-endpoints.js';
import type { AnonymousHandlers, SuccessShapes } from '../src/http/handler-types.js';

/** One handler per anonymous operationId of openapi.yaml; the type makes a missing or unknown one a compile error. */
export const handlers: AnonymousHandlers = {
  ...oauth,
  ...meta,
  ...accounts,
};

/** The bearer operations whose REST success has a status or header of its own (201 with `Location`, `no-store`). */
export const successShapes: SuccessShapes = {
  ...policies,
  ...reports,
  ...webhookEndpoints,
};
