import { prepareTestDatabasesAhead, settleTestDatabases } from './database.js';

/** Mocha's root hooks for the whole run (.mocharc.json): test databases copied and dropped ahead (database.ts). */
export const mochaHooks = {
  beforeAll(): void {
    prepareTestDatabasesAhead();
  },
  afterAll(): Promise<void> {
    return settleTestDatabases();
  },
};
