import type { SessionService } from '../services/sessions.js';
import type { cookieNames } from './visitor.js';

/**
 * What every page module gets: the sessions (the dashboard's own transport: ending one, the one-time flash) and the
 * cookie names. Pages reach the use cases only through the pipeline (`callsOf`).
 */
export interface DashboardContext {
  sessions: SessionService;
  cookies: ReturnType<typeof cookieNames>;
}
