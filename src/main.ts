import { pino } from 'pino';
import { migrateToLatest, openDatabase } from '../db/connect.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { seedDemo } from './demo.js';
import { startServer } from './server.js';
import type { Services } from './services/index.js';

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const config = configOrExit();
  const logger = pino({ level: config.logLevel });
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, timeouts: config.databaseTimeouts });
  await migrateToLatest(db.kysely);
  const seed = process.argv.includes('--demo') ? (services: Services) => seedDemo(services, config.baseUrl) : undefined;
  const running = await startServer(config, db, logger, { beforeListen: seed });
  logger.info({ port: running.port, baseUrl: config.baseUrl, database: db.kind }, 'serving');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining in-flight requests');
    await running.drain();
    await db.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(`Failed to start: ${(error as Error).message}`);
  process.exit(1);
});
