import type { Kysely, Transaction } from 'kysely';
import type { components } from '../../generated/api.js';
import type { Database, PolicyRow } from '../../db/schema.js';
import { ProblemError } from '../problems.js';
import { currentDisclosure } from './disclosures.js';
import type { PriceSource } from './market-data.js';
import { dec } from './money.js';
import { decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page } from './pagination.js';

export type Policy = components['schemas']['Policy'];
export type PolicyCreateRequest = components['schemas']['PolicyCreateRequest'];
type PolicyLimits = components['schemas']['PolicyLimits'];
type ConsentRecord = components['schemas']['ConsentRecord'];
type Executor = Kysely<Database> | Transaction<Database>;

export const DEFAULT_REBALANCE_BAND = 0.05;
const WEIGHT_TOLERANCE = dec('1e-9');
// The only market the paper broker executes in; a policy allowing another could never be traded.
const TRADABLE_MARKETS: readonly string[] = ['US'];

export interface CreatePolicyInput {
  accountId: string;
  clientId: string;
  ip: string;
  userAgent: string | null;
  body: PolicyCreateRequest;
  now: Date;
  prices: PriceSource;
}

function checkConsent(consent: PolicyCreateRequest['consent']): NonNullable<PolicyCreateRequest['consent']> {
  const disclosure = currentDisclosure();
  if (!consent) {
    throw new ProblemError(
      'consent-required',
      `A policy requires e-consent to disclosure ${disclosure.version} (GET /v1/disclosures/current) in \`consent\`.`,
    );
  }
  if (consent.accepted !== true) {
    throw new ProblemError('consent-refused', 'The consent says `accepted` false; a policy is only created with accepted consent.');
  }
  if (consent.disclosure_version !== disclosure.version) {
    throw new ProblemError(
      'consent-outdated',
      `Consent was given to disclosure ${consent.disclosure_version}; the current disclosure is ${disclosure.version}.`,
      { current_disclosure_version: disclosure.version },
    );
  }
  return consent;
}

function checkPolicy(body: PolicyCreateRequest, prices: PriceSource): void {
  const { limits, target_allocation: targets } = body;

  const unsupported = limits.allowed_markets.filter((m) => !TRADABLE_MARKETS.includes(m));
  if (unsupported.length > 0) {
    throw new ProblemError(
      'unsupported-market',
      `${unsupported.length === 1 ? 'Market' : 'Markets'} ${unsupported.join(', ')} cannot be traded; the paper broker trades ${TRADABLE_MARKETS.join(', ')}.`,
      { supported_markets: [...TRADABLE_MARKETS] },
    );
  }

  const mentioned = [...targets.map((t) => t.symbol), ...(limits.allowed_symbols ?? []), ...(limits.blocked_symbols ?? [])];
  const unknown = [...new Set(mentioned.filter((symbol) => !prices.instrument(symbol)))];
  if (unknown.length > 0) {
    throw new ProblemError('unknown-symbol', `Not listed in any supported market: ${unknown.join(', ')}.`, { unknown_symbols: unknown });
  }

  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { symbol } of targets) (seen.has(symbol) ? duplicates : seen).add(symbol);
  if (duplicates.size > 0) {
    throw new ProblemError('invalid-policy', `target_allocation lists ${[...duplicates].join(', ')} more than once; give one entry per symbol.`);
  }

  // Decimal sum of the decimal literals: 0.1 + 0.2 + 0.7 is exactly 1 here, unlike in binary floating point.
  const sum = targets.reduce((total, t) => total.plus(dec(t.weight)), dec(0));
  if (sum.minus(1).abs().greaterThan(WEIGHT_TOLERANCE)) {
    throw new ProblemError('invalid-policy', `Target weights sum to ${sum.toString()}; they must sum to 1 (± 1e-9).`);
  }

  const blocked = new Set(limits.blocked_symbols ?? []);
  const allowed = limits.allowed_symbols ? new Set(limits.allowed_symbols) : null;
  const excluded = targets
    .map((t) => t.symbol)
    .filter((symbol) => blocked.has(symbol) || (allowed !== null && !allowed.has(symbol)));
  if (excluded.length > 0) {
    throw new ProblemError(
      'invalid-policy',
      `Target symbols ${excluded.join(', ')} are blocked or not in allowed_symbols; a target must be tradable under the policy.`,
    );
  }
}

function view(row: PolicyRow): Policy {
  const limits = row.limits as PolicyLimits;
  const consent = row.consent as ConsentRecord;
  return {
    version: row.version,
    created_at: new Date(row.created_at).toISOString(),
    created_by_client_id: row.created_by_client_id,
    limits,
    target_allocation: row.target_allocation.map(({ symbol, weight }) => ({ symbol, weight })),
    rebalance_band: Number(row.rebalance_band),
    consent: {
      disclosure_version: consent.disclosure_version,
      disclosure_sha256: consent.disclosure_sha256,
      accepted: consent.accepted,
      signer_name: consent.signer_name,
      accepted_at: new Date(consent.accepted_at).toISOString(),
      client_id: consent.client_id,
      ip: consent.ip,
      user_agent: consent.user_agent ?? null,
    },
  };
}

/**
 * Creates version n+1 of the account's policy with the consent record. The account row is locked for the
 * transaction, so concurrent creates for one account queue up and take consecutive versions.
 */
export async function createPolicy(db: Kysely<Database>, input: CreatePolicyInput): Promise<Policy> {
  const { body, now } = input;
  const consent = checkConsent(body.consent);
  checkPolicy(body, input.prices);
  const disclosure = currentDisclosure();
  const record: ConsentRecord = {
    disclosure_version: disclosure.version,
    disclosure_sha256: disclosure.sha256,
    accepted: true,
    signer_name: consent.signer_name,
    accepted_at: now.toISOString(),
    client_id: input.clientId,
    ip: input.ip,
    user_agent: input.userAgent,
  };

  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('accounts').select('id').where('id', '=', input.accountId).forUpdate().executeTakeFirstOrThrow();
    const { latest } = await trx
      .selectFrom('policies')
      .select((eb) => eb.fn.max('version').as('latest'))
      .where('account_id', '=', input.accountId)
      .executeTakeFirstOrThrow();
    const row = await trx
      .insertInto('policies')
      .values({
        account_id: input.accountId,
        version: (latest ?? 0) + 1,
        limits: JSON.stringify(body.limits),
        target_allocation: JSON.stringify(body.target_allocation.map(({ symbol, weight }) => ({ symbol, weight }))),
        rebalance_band: body.rebalance_band ?? DEFAULT_REBALANCE_BAND,
        consent: JSON.stringify(record),
        created_by_client_id: input.clientId,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return view(row);
  });
}

/** The account's policy versions, newest first. */
export async function listPolicies(db: Executor, accountId: string, page: { limit?: number; cursor?: string }): Promise<Page<Policy>> {
  const limit = page.limit ?? DEFAULT_PAGE_SIZE;
  const before = decodeCursor<number>(page.cursor, 'number');
  let query = db.selectFrom('policies').selectAll().where('account_id', '=', accountId);
  if (before !== undefined) query = query.where('version', '<', before);
  const rows = await query.orderBy('version', 'desc').limit(limit + 1).execute();
  return toPage(rows, limit, view, (row) => row.version);
}

/** The policy in force (the newest version), or null while the account has none. */
export async function getCurrentPolicy(db: Executor, accountId: string): Promise<Policy | null> {
  const row = await db
    .selectFrom('policies')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? view(row) : null;
}

/** One version of the account's policy, or null; another account's version is simply not found. */
export async function getPolicy(db: Executor, accountId: string, version: number): Promise<Policy | null> {
  const row = await db
    .selectFrom('policies')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('version', '=', version)
    .executeTakeFirst();
  return row ? view(row) : null;
}
