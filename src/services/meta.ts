import type { Document } from 'openapi-backend';
import { ping } from '../../db/connect.js';
import { publishDocument } from '../document.js';
import type { ServiceContext } from './context.js';

/** How long readiness waits for the database: a load balancer's probe must not hang with it. */
const READINESS_DATABASE_TIMEOUT_MS = 1000;

export interface Readiness {
  ready: boolean;
  checks: { database: 'ok' | 'fail'; requests: 'ok' | 'draining'; rate_limit_store?: 'ok' | 'fail' };
}

/** The published contract and the process's readiness. */
export class MetaService {
  private published: Document | undefined;
  private rateLimitStore: { state(): 'ok' | 'fail' | undefined } | undefined;
  /** Whether this server accepts new work: false before it listens and once it starts draining (its own, not the process's). */
  private accepting = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly document: Document,
  ) {}

  /** The bundled contract with `servers` set to this deployment (one object per process: channels may encode it once). */
  openApiDocument(): Document {
    this.published ??= publishDocument(this.document, this.ctx.config.baseUrl);
    return this.published;
  }

  /** Reports the shared rate-limit store in readiness (its outage is reported, not a reason to take no traffic). */
  watchRateLimitStore(store: { state(): 'ok' | 'fail' | undefined }): void {
    this.rateLimitStore = store;
  }

  /** The server turns this on once it listens and off when it stops accepting or drains. */
  setAccepting(accepting: boolean): void {
    this.accepting = accepting;
  }

  async readiness(): Promise<Readiness> {
    let database: 'ok' | 'fail' = 'ok';
    try {
      await ping(this.ctx.store.db, READINESS_DATABASE_TIMEOUT_MS);
    } catch {
      database = 'fail';
    }
    const requests = this.accepting ? 'ok' : 'draining';
    const store = this.rateLimitStore?.state();
    return { ready: database === 'ok' && requests === 'ok', checks: { database, requests, ...(store ? { rate_limit_store: store } : {}) } };
  }
}
