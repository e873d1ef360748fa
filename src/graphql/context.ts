import type { Logger } from 'pino';
import type { Pipeline } from '../application/pipeline.js';
import type { Origin } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import type { Reply } from '../http/reply.js';
import type { Services } from '../services/index.js';

/**
 * What every resolver gets: the caller authenticated once for the HTTP request, the pipeline and the bound use
 * cases. (A type, not an interface: graphql-http wants a context assignable to a record.)
 */
export type GraphQLContext = {
  services: Services;
  pipeline: Pipeline;
  principal: Principal;
  origin: Origin;
  log: Logger;
  /** Problem `type` URIs are absolute against it, as in REST. */
  baseUrl: string;
  /** The request's Idempotency-Key, when its document is a mutation of one field: it keys that field. */
  key?: string;
  /** Whether the keyed field's answer is the replay of an earlier request's. */
  replayed: boolean;
  /** A refusal of the key itself (in use, reused): the answer to the whole request, as over REST. */
  keyRefusal?: Reply;
};
