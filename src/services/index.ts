import type { Config } from '../config.js';
import type { Db } from '../../db/connect.js';
import { loadSigningKey, type SigningKey } from '../auth/keys.js';
import { TokenService } from '../auth/tokens.js';
import { systemClock, type Clock } from '../clock.js';
import { ClientService } from './clients.js';
import { SimulatedPriceSource, type PriceSource } from './market-data.js';

/** Everything the adapters (REST handlers today; GraphQL and MCP later) call. One per process; no request state. */
export interface Services {
  config: Config;
  db: Db;
  clients: ClientService;
  tokens: TokenService;
  signingKey: SigningKey;
  clock: Clock;
  prices: PriceSource;
}

/** What tests (or another deployment) may replace: the clock and the price source. */
export interface ServiceOverrides {
  clock?: Clock;
  prices?: PriceSource;
}

export async function createServices(config: Config, db: Db, overrides: ServiceOverrides = {}): Promise<Services> {
  const clients = new ClientService(db.kysely, config.bcryptCost, config.clientStatusCacheMs);
  const signingKey = await loadSigningKey(db.kysely, config.signingKeyPem);
  const tokens = new TokenService(signingKey, config.baseUrl, config.baseUrl, config.tokenTtlSeconds, clients);
  return {
    config,
    db,
    clients,
    tokens,
    signingKey,
    clock: overrides.clock ?? systemClock,
    prices: overrides.prices ?? new SimulatedPriceSource(),
  };
}
