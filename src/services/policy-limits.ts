import { sql, type Expression, type SqlBool } from 'kysely';
import { ProblemError } from '../problems.js';

/**
 * The bounds of the numeric limits, as `PolicyLimits` (openapi/components/schemas/policies.yaml) declares them
 * (test/contract.test.ts holds the two together). Requests are held to them by the schema; stored versions are held
 * to them when read, because a version stored before they existed may hold anything the old schema let through —
 * `1e400` was stored as null.
 */
export const LIMIT_BOUNDS = {
  max_order_notional: { minimum: 0.01, maximum: 1e12 },
  max_position_weight: { minimum: 0, maximum: 1 },
  max_daily_notional: { minimum: 0.01, maximum: 1e12 },
  max_daily_loss: { minimum: 0.01, maximum: 1e12 },
} as const;

/** The limits a policy may leave out (a default applies), held to their bounds when it gives them. */
export const OPTIONAL_LIMIT_BOUNDS = {
  max_price_deviation: { minimum: 0, maximum: 1 },
} as const;

type LimitName = keyof typeof LIMIT_BOUNDS | keyof typeof OPTIONAL_LIMIT_BOUNDS;
const LIMIT_NAMES = Object.keys(LIMIT_BOUNDS) as LimitName[];
const OPTIONAL_NAMES = Object.keys(OPTIONAL_LIMIT_BOUNDS) as LimitName[];
const BOUNDS: Record<LimitName, { minimum: number; maximum: number }> = { ...LIMIT_BOUNDS, ...OPTIONAL_LIMIT_BOUNDS };

const describe = (name: LimitName) => `${name} is not a number from ${BOUNDS[name].minimum} to ${BOUNDS[name].maximum}`;

/** A stored version whose limits are outside the declared bounds: never shown or used, so never a 500. */
export class PolicyInvalidError extends ProblemError {
  constructor(
    readonly version: number,
    readonly invalidLimits: string[],
  ) {
    super(
      'policy-invalid',
      `Policy version ${version} cannot be used: ${invalidLimits.map((n) => describe(n as LimitName)).join(', ')} ` +
        '(it was stored before limits were bounded). Sign a new policy version (POST /v1/policies); the stored version is kept.',
      { policy_version: version, invalid_limits: invalidLimits },
    );
    this.name = 'PolicyInvalidError';
  }
}

/** The limits of a stored version that are not finite numbers within their bounds. */
export function invalidLimits(limits: unknown): LimitName[] {
  const stored = (limits ?? {}) as Record<string, unknown>;
  return [...LIMIT_NAMES, ...OPTIONAL_NAMES.filter((name) => stored[name] !== undefined)].filter((name) => {
    const value = stored[name];
    const { minimum, maximum } = BOUNDS[name];
    return !(typeof value === 'number' && Number.isFinite(value) && value >= minimum && value <= maximum);
  });
}

/**
 * The same rule in SQL over the `limits` column, for lists that leave invalid versions out in the query (so pages
 * stay full). The cast runs only on JSON numbers: CASE fixes the order, AND would not.
 */
export function hasValidLimits(limits: Expression<unknown>): Expression<SqlBool> {
  const checks = [...LIMIT_NAMES, ...OPTIONAL_NAMES].map((name) => {
    const { minimum, maximum } = BOUNDS[name];
    const absent = OPTIONAL_NAMES.includes(name) ? sql`when ${limits} -> ${name} is null then true` : sql``;
    return sql<boolean>`case ${absent} when jsonb_typeof(${limits} -> ${name}) = 'number'
      then (${limits} ->> ${name})::numeric between ${minimum} and ${maximum} else false end`;
  });
  return sql<SqlBool>`(${sql.join(checks, sql` and `)})`;
}
