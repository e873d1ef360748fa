import type { Contract } from '../contract/operations.js';
import type { Services } from '../services/index.js';
import type { cookieNames } from './visitor.js';

/** What every page module gets. */
export interface DashboardContext {
  services: Services;
  contract: Contract;
  cookies: ReturnType<typeof cookieNames>;
}
