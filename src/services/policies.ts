import type { components } from '../../generated/api.js';
import type { PolicyRow } from '../../db/schema.js';
import type { Actor } from '../auth/authorize.js';
import { ProblemError } from '../problems.js';
import type { ServiceContext } from './context.js';
import { currentDisclosure, type Disclosure } from './disclosures.js';
import { publish } from './events/outbox.js';
import { invalidField, InvalidInputError, NotFoundError, UnsupportedMarketError } from './errors.js';
import type { PriceSource } from './market-data.js';
import { dec, type Dec } from './money.js';
import { PAPER_MARKETS } from './brokers.js';
import { keysetPage, type Page, type PageRequest } from './pagination.js';
import { hasValidLimits, invalidLimits, PolicyInvalidError } from './policy-limits.js';
import type { Queryable } from './store.js';

export type Policy = components['schemas']['Policy'];
export type PolicyCreateRequest = components['schemas']['PolicyCreateRequest'];
type PolicyLimits = components['schemas']['PolicyLimits'];
type ConsentRecord = components['schemas']['ConsentRecord'];

export const DEFAULT_REBALANCE_BAND = 0.05;
/** How far from 1 the target weights may sum (the contract's ± 1e-9). */
export const WEIGHT_TOLERANCE = dec('1e-9');

/**
 * The decimal sum of target weights (0.1 + 0.2 + 0.7 is exactly 1 here, unlike in binary floating point), and whether
 * it is 1 within the tolerance.
 */
export function weightSum(weights: readonly number[]): { sum: Dec; isOne: boolean } {
  const sum = weights.reduce((total, weight) => total.plus(dec(weight)), dec(0));
  return { sum, isOne: sum.minus(1).abs().lessThanOrEqualTo(WEIGHT_TOLERANCE) };
}

/**
 * A signature is a name: it holds a letter (blank space, digits or punctuation alone sign nothing). One word is a
 * name too — people with a single name sign with it.
 */
const isName = (name: string) => /\p{L}/u.test(name);

function checkConsent(consent: PolicyCreateRequest['consent']): NonNullable<PolicyCreateRequest['consent']> {
  const disclosure = currentDisclosure();
  if (!consent) {
    throw new ProblemError(
      'consent-required',
      `A policy requires e-consent to disclosure ${disclosure.version} (getCurrentDisclosure) in \`consent\`.`,
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
  if (!isName(consent.signer_name)) throw invalidField('consent/signer_name', 'must be a name: it holds no letter');
  return consent;
}

/** Policy amounts are money in the account's currency (USD): whole cents at most. */
const AMOUNT_LIMITS = ['max_order_notional', 'max_daily_notional', 'max_daily_loss'] as const;

function checkPolicy(body: PolicyCreateRequest, prices: PriceSource): void {
  const { limits, target_allocation: targets } = body;

  const subCent = AMOUNT_LIMITS.filter((name) => dec(limits[name]).decimalPlaces() > 2);
  if (subCent.length > 0)
    throw new InvalidInputError(
      subCent.map((name) => ({ field: `limits/${name}`, detail: 'must be an amount in whole cents (at most 2 decimals)' })),
    );

  const unsupported = limits.allowed_markets.filter((m) => !PAPER_MARKETS.includes(m));
  if (unsupported.length > 0) throw new UnsupportedMarketError(unsupported, PAPER_MARKETS, 'cannot be traded by the paper broker');

  const mentioned = [...targets.map((t) => t.symbol), ...(limits.allowed_symbols ?? []), ...(limits.blocked_symbols ?? [])];
  const unknown = [...new Set(mentioned.filter((symbol) => !prices.instrument(symbol)))];
  if (unknown.length > 0) {
    throw new ProblemError('unknown-symbol', `Not listed in any supported market: ${unknown.join(', ')}.`, { unknown_symbols: unknown });
  }

  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { symbol } of targets) (seen.has(symbol) ? duplicates : seen).add(symbol);
  if (duplicates.size > 0) {
    throw new ProblemError(
      'invalid-policy',
      `target_allocation lists ${[...duplicates].join(', ')} more than once; give one entry per symbol.`,
    );
  }

  const { sum, isOne } = weightSum(targets.map((t) => t.weight));
  if (!isOne) {
    throw new ProblemError(
      'invalid-policy',
      `Target weights sum to ${sum.toString()} (${sum.times(100).toString()} %); they must sum to 1 (100 %), within ${WEIGHT_TOLERANCE.toString()}.`,
    );
  }

  const blocked = new Set(limits.blocked_symbols ?? []);
  const allowed = limits.allowed_symbols ? new Set(limits.allowed_symbols) : null;
  const excluded = targets.map((t) => t.symbol).filter((symbol) => blocked.has(symbol) || (allowed !== null && !allowed.has(symbol)));
  if (excluded.length > 0) {
    throw new ProblemError(
      'invalid-policy',
      `Target symbols ${excluded.join(', ')} are blocked or not in allowed_symbols; a target must be tradable under the policy.`,
    );
  }
}

/** A stored version as the contract shows it, or, for one whose limits are outside their bounds, its problem. */
export function storedPolicy(row: PolicyRow): Policy | PolicyInvalidError {
  const invalid = invalidLimits(row.limits);
  return invalid.length > 0 ? new PolicyInvalidError(row.version, invalid) : policyView(row);
}

/** The stored version as the contract shows it; one whose limits are invalid is refused (409 `policy-invalid`). */
export function validPolicy(row: PolicyRow): Policy {
  const policy = storedPolicy(row);
  if (policy instanceof PolicyInvalidError) throw policy;
  return policy;
}

function policyView(row: PolicyRow): Policy {
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

/** The policy in force (the newest version), or null while the account has none; 409 when that version is invalid. */
export async function currentPolicyOf(db: Queryable, accountId: string): Promise<Policy | null> {
  const row = await db
    .selectFrom('policies')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? validPolicy(row) : null;
}

/** Versioned investment policies with e-consent, and the disclosure consent is given to. */
export class PolicyService {
  constructor(private readonly ctx: ServiceContext) {}

  currentDisclosure(_actor: Actor<'getCurrentDisclosure'>): Disclosure {
    return currentDisclosure();
  }

  /**
   * Creates version n+1 of the account's policy with the consent record. The account row is locked for the
   * transaction, so concurrent creates for one account queue up and take consecutive versions.
   */
  async create(actor: Actor<'createPolicy'>, body: PolicyCreateRequest): Promise<Policy> {
    const consent = checkConsent(body.consent);
    checkPolicy(body, this.ctx.prices);
    const disclosure = currentDisclosure();
    const now = this.ctx.clock.now();
    const record: ConsentRecord = {
      disclosure_version: disclosure.version,
      disclosure_sha256: disclosure.sha256,
      accepted: true,
      signer_name: consent.signer_name,
      accepted_at: now.toISOString(),
      client_id: actor.clientId,
      ip: actor.origin.ip,
      user_agent: actor.origin.userAgent,
    };

    return this.ctx.store.transaction(async (trx) => {
      await trx.selectFrom('accounts').select('id').where('id', '=', actor.accountId).forUpdate().executeTakeFirstOrThrow();
      const { latest } = await trx
        .selectFrom('policies')
        .select((eb) => eb.fn.max('version').as('latest'))
        .where('account_id', '=', actor.accountId)
        .executeTakeFirstOrThrow();
      const row = await trx
        .insertInto('policies')
        .values({
          account_id: actor.accountId,
          version: (latest ?? 0) + 1,
          limits: JSON.stringify(body.limits),
          target_allocation: JSON.stringify(body.target_allocation.map(({ symbol, weight }) => ({ symbol, weight }))),
          rebalance_band: body.rebalance_band ?? DEFAULT_REBALANCE_BAND,
          consent: JSON.stringify(record),
          created_by_client_id: actor.clientId,
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const policy = policyView(row);
      await publish(trx, [{ accountId: actor.accountId, type: 'policy.created', at: now, data: policy }]);
      return policy;
    });
  }

  /** The account's policy versions, newest first; invalid ones (stored before limits were bounded) are left out, as documented. */
  async list(actor: Actor<'listPolicies'>, page: PageRequest): Promise<Page<Policy>> {
    const query = this.ctx.store.db
      .selectFrom('policies')
      .selectAll()
      .where('account_id', '=', actor.accountId)
      .where((eb) => hasValidLimits(eb.ref('limits')));
    const rows = await keysetPage<PolicyRow, number>(query, 'version', 'number', page);
    return { data: rows.data.map(validPolicy), next_cursor: rows.next_cursor };
  }

  async current(actor: Actor<'getCurrentPolicy'>): Promise<Policy> {
    const policy = await currentPolicyOf(this.ctx.store.db, actor.accountId);
    if (!policy) throw new NotFoundError('The account has no policy yet; create one (createPolicy).');
    return policy;
  }

  /** One version of the account's policy; another account's version is simply not found. */
  async get(actor: Actor<'getPolicy'>, version: number): Promise<Policy> {
    const row = await this.ctx.store.db
      .selectFrom('policies')
      .selectAll()
      .where('account_id', '=', actor.accountId)
      .where('version', '=', version)
      .executeTakeFirst();
    if (!row) throw new NotFoundError(`Policy version ${version} does not exist.`);
    return validPolicy(row);
  }
}
