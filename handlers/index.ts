import * as accounts from './accounts.js';
import * as goals from './goals.js';
import * as killSwitch from './kill-switch.js';
import * as meta from './meta.js';
import * as oauth from './oauth.js';
import * as orders from './orders.js';
import * as policies from './policies.js';
import * as portfolio from './portfolio.js';
import * as ideas from './ideas.js';
import * as reports from './reports.js';
import type { HandlerRegistry } from './types.js';

/** One handler per operationId of openapi.yaml; the type makes a missing or unknown one a compile error. */
export const handlers: HandlerRegistry = {
  ...oauth,
  ...meta,
  ...accounts,
  ...goals,
  ...policies,
  ...portfolio,
  ...killSwitch,
  ...orders,
  ...ideas,
  ...reports,
};
