/**
 * What the contract says of an operation, a parameter or a field it deprecates: `deprecated: true`, the day the
 * deprecation took effect (`x-deprecated-at`) and the day it may be removed (`x-sunset`), both `YYYY-MM-DD` in UTC
 * (openapi/description.md, "Deprecation"). Every channel announces it from here; `make contract-check` allows removing
 * it once the sunset has passed.
 */
export interface Deprecation {
  /** `x-deprecated-at`; undefined when the contract does not say (a release requires it: scripts/contract-release.ts). */
  since: string | undefined;
  /** `x-sunset`; undefined when no removal date is announced (then it is never removed without a major release). */
  sunset: string | undefined;
}

/** Where the deprecation notice is served (docs/contract.md, its "Deprecations" section), below the base URL. */
export const DEPRECATION_NOTICE_PATH = '/docs/guides/contract#deprecations';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function dateOf(node: Record<string, unknown>, key: 'x-sunset' | 'x-deprecated-at', where: string): string | undefined {
  const value = node[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
    throw new Error(`${where}: ${key} must be a date written YYYY-MM-DD, not ${JSON.stringify(value)}`);
  return value;
}

/**
 * The deprecation an operation, parameter or schema declares, or undefined when it is not deprecated. A date on a node
 * that is not deprecated, a malformed date, or a sunset before the deprecation is a mistake in the contract: it throws,
 * naming `where`.
 */
export function deprecationOf(node: unknown, where: string): Deprecation | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const fields = node as Record<string, unknown>;
  const since = dateOf(fields, 'x-deprecated-at', where);
  const sunset = dateOf(fields, 'x-sunset', where);
  if (fields.deprecated !== true) {
    if (since ?? sunset) throw new Error(`${where}: x-sunset and x-deprecated-at belong to something marked deprecated: true`);
    return undefined;
  }
  if (since && sunset && sunset < since) throw new Error(`${where}: x-sunset ${sunset} comes before x-deprecated-at ${since}`);
  return { since, sunset };
}

/** Whether a deprecation's sunset has come by `today` (YYYY-MM-DD): from that day on it may be removed. */
export function sunsetPassed(deprecation: Deprecation | undefined, today: string): boolean {
  return deprecation?.sunset !== undefined && deprecation.sunset <= today;
}

const midnight = (date: string) => new Date(`${date}T00:00:00Z`);

/**
 * The response headers that announce a deprecation over HTTP: `Deprecation` (RFC 9745, the moment it took effect as
 * `@` epoch seconds; `fallbackSince` when the contract gives no `x-deprecated-at`), `Sunset` (RFC 8594, an HTTP-date,
 * when a sunset is announced) and `Link` to the notice with `rel="deprecation"`.
 */
export function deprecationHeaders(deprecation: Deprecation, baseUrl: string, fallbackSince: string): Record<string, string> {
  const since = midnight(deprecation.since ?? fallbackSince);
  return {
    Deprecation: `@${Math.floor(since.getTime() / 1000)}`,
    ...(deprecation.sunset ? { Sunset: midnight(deprecation.sunset).toUTCString() } : {}),
    Link: `<${baseUrl}${DEPRECATION_NOTICE_PATH}>; rel="deprecation"; type="text/html"`,
  };
}

/** A deprecation in words, for GraphQL's `@deprecated(reason:)` and an MCP tool's description. */
export function deprecationText(deprecation: Deprecation, noticeUrl: string): string {
  const since = deprecation.since ? ` since ${deprecation.since}` : '';
  const sunset = deprecation.sunset ? `; it may be removed from ${deprecation.sunset} (its sunset)` : '';
  return `Deprecated${since}${sunset}. See ${noticeUrl}.`;
}
