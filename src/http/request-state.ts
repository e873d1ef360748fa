import type { Logger } from 'pino';
import type { RequestInfo } from '../../handlers/types.js';

/** What the adapters read of a request: its id, origin and headers, and a logger that names it. */
export interface ApiRequestState {
  requestInfo: RequestInfo;
  log: Logger;
}
