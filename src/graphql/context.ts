import type { Logger } from 'pino';
import type { Origin } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import type { Contract } from '../contract/operations.js';
import type { Services } from '../services/index.js';

/**
 * What every resolver gets: the caller authenticated once for the HTTP request, and the bound use cases. (A type,
 * not an interface: graphql-http wants a context assignable to a record.)
 */
export type GraphQLContext = {
  services: Services;
  contract: Contract;
  principal: Principal;
  origin: Origin;
  log: Logger;
  /** Problem `type` URIs are absolute against it, as in REST. */
  baseUrl: string;
};
