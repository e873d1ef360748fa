// What every case of `make bench` (scripts/bench.ts) shares: the run's database and clients, the rows of the report
// and the raw results, and how it prints numbers.
import type { Db } from '../../db/connect.js';
import type { Service } from './support.js';

/** One row of BENCHMARKS.md's table. */
export interface Row {
  case: string;
  measured: string;
  ratio?: number;
  target?: string;
  met?: boolean;
}

/** A client of its own account, with a token for the service it was made on. */
export interface BenchClient {
  accountId: string;
  clientId: string;
  token: string;
  /** A token for another service process (each names its own URL as issuer and audience). */
  tokenFor: (other: Service) => Promise<string>;
}

export interface Bench {
  database: { url: string };
  db: Db;
  /** Seconds each throughput measurement lasts (BENCH_SECONDS). */
  duration: number;
  rows: Row[];
  raw: Record<string, unknown>;
  client: (service: Service, scopes?: string[]) => Promise<BenchClient>;
}

/** The read every throughput case loads: the service, a reader's token and the URL. */
export interface Reading {
  single: Service;
  reader: BenchClient;
  readUrl: string;
  auth: Record<string, string>;
}

export const log = (line: string) => process.stdout.write(`${line}\n`);
export const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
