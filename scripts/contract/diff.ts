import { isDeepStrictEqual } from 'node:util';
import { apiCompare, type Diff } from 'api-smart-diff';
import { deprecationOf, sunsetPassed } from '../../src/contract/deprecation.js';
import { resolved } from '../../src/contract/refs.js';
import { detailOf, placeOf, WEBHOOK_PREFIX, type Change, type ChangeKind, type Json, type Place } from './describe.js';
import { operationIdRule, problemTypeRules, securityRule } from './rules.js';

/**
 * The released contract against the current one, as a partner who generated an SDK from the released one sees it.
 * api-smart-diff (MIT, OpenAPI 3.0 and 3.1, `$ref`s followed) finds and classifies the structural changes of every
 * operation; the rules it lacks or gets wrong for SDKs are here and in rules.ts: operationIds, scopes, problem types,
 * a request member removed (request bodies are closed), an answer's type changed or enum value removed, webhooks
 * (payloads are answers the service sends), and a deprecated thing removed once its sunset has passed.
 */

export type { Change, ChangeKind } from './describe.js';

/** Webhook payloads as the answers of operations, so that the answer's rules apply to what the service sends. */
function comparable(document: Json): Json {
  const paths: Json = { ...(document.paths as Json) };
  for (const [name, item] of Object.entries((document.webhooks ?? {}) as Record<string, Json>)) {
    const operation = item.post as Json;
    const body = resolved<Json>(document, (operation.requestBody ?? {}) as Json);
    const content = (body.content ?? {}) as Json;
    paths[`${WEBHOOK_PREFIX}${name}`] = {
      post: { operationId: operation.operationId as string, responses: { '200': { description: name, content } } },
    };
  }
  return { ...document, paths, webhooks: undefined };
}

/** The rule a breaking change of api-smart-diff's breaks, named for the report and the changelog. */
function ruleOf(diff: Diff, place: Place): string {
  const { action } = diff;
  if (place.section === 'operation') return 'operation-removed';
  if (place.side === 'input') {
    if (place.key === 'parameter') return action === 'remove' ? 'parameter-removed' : 'parameter-required-added';
    if (place.key === 'required' || place.key === 'properties') return 'request-field-required';
    if (place.part === 'request body' && place.section !== 'schema') return 'request-body-changed';
    return place.part === 'request body' ? 'request-input-narrowed' : 'parameter-narrowed';
  }
  if (place.key === 'response') return 'response-status-removed';
  if (place.key === 'properties') return 'response-field-removed';
  if (place.key === 'required') return 'response-field-optional';
  if (place.key === 'enum') return 'response-enum-value-added';
  if (place.section === 'headers') return 'response-header-removed';
  return 'response-changed';
}

/** The rules api-smart-diff lacks for SDKs, on one of its diffs: the rule broken, if any. */
function sdkRule(diff: Diff, place: Place): string | undefined {
  if (place.side === 'input' && place.section === 'schema' && place.key === 'properties' && diff.action === 'remove')
    return 'request-field-removed';
  // An SDK's type loses the member, optional or not: code that reads it no longer compiles.
  if (place.side === 'output' && place.section === 'schema' && place.key === 'properties' && diff.action === 'remove')
    return 'response-field-removed';
  if (place.side === 'output' && place.section === 'schema' && place.key === 'enum' && diff.action !== 'add')
    return 'response-enum-value-removed';
  if (place.side === 'output' && place.section === 'schema' && place.key === 'type') return 'response-type-changed';
  return undefined;
}

/** The deprecation a removed operation, parameter or field had in the released contract. */
function removedDeprecation(diff: Diff, before: Json, where: string) {
  if (diff.action !== 'remove' || typeof diff.before !== 'object' || diff.before === null) return undefined;
  return deprecationOf(resolved<Json>(before, diff.before as Json), where);
}

/** The node at a diff's path, `$ref`s followed on the way (api-smart-diff's paths go through them). */
function nodeAt(document: Json, path: (string | number)[]): Json | undefined {
  let node: unknown = document;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = resolved<Json>(document, node)[key];
  }
  return typeof node === 'object' && node !== null ? resolved<Json>(document, node) : undefined;
}

function classify(diff: Diff, place: Place, before: Json, after: Json, today: string): Change | undefined {
  // Those the SDK rules judge as a whole (rules.ts): left out here, so that each is reported once.
  if (['security', 'x-problem-types', 'operationId', 'links'].includes(place.section)) return undefined;
  const detail = detailOf(diff, place);
  const change = {
    where: place.where,
    pointer: place.pointer,
    text: place.part && !detail.includes(place.part) ? `${place.part}: ${detail}` : detail,
  };
  const rule = sdkRule(diff, place) ?? (diff.type === 'breaking' ? ruleOf(diff, place) : undefined);
  if (rule) {
    const deprecation = removedDeprecation(diff, before, place.where);
    if (deprecation && sunsetPassed(deprecation, today))
      return { ...change, kind: 'removed', note: `deprecated, removed after its sunset ${deprecation.sunset!}` };
    const note = deprecation ? `deprecated, but its sunset (${deprecation.sunset ?? 'none announced'}) has not passed` : undefined;
    return { ...change, kind: 'breaking', rule, ...(note ? { note } : {}) };
  }
  if (place.key === 'deprecated' && diff.after === true) {
    const deprecated = nodeAt(after, diff.path.slice(0, -1));
    const dates = [
      deprecated?.['x-deprecated-at'] && `since ${String(deprecated['x-deprecated-at'])}`,
      deprecated?.['x-sunset'] && `sunset ${String(deprecated['x-sunset'])}`,
    ];
    return { ...change, kind: 'deprecated', text: [change.text, ...(dates as unknown[])].filter(Boolean).join(', ') };
  }
  if (diff.type === 'annotation' || place.key === 'description' || place.key === 'summary' || place.key === 'examples')
    return { ...change, kind: 'documentation' };
  return {
    ...change,
    kind: diff.action === 'add' && ['properties', 'parameter', 'response', 'operation'].includes(place.key) ? 'added' : 'changed',
  };
}

/**
 * Every change from the released contract to the current one that a partner would want to know of, breaking ones
 * first. `today` (YYYY-MM-DD, UTC) decides which sunsets have passed. A change in descriptions only is one
 * `documentation` change.
 */
export function compareContracts(released: Json, current: Json, today: string): Change[] {
  const [before, after] = [comparable(released), comparable(current)];
  const changes: Change[] = [];
  for (const diff of apiCompare(before, after).diffs) {
    const place = placeOf(diff, before, after);
    const change = place && classify(diff, place, before, after, today);
    if (change) changes.push(change);
  }
  changes.push(...operationIdRule(released, current), ...securityRule(released, current), ...problemTypeRules(released, current));
  // A removed field is no longer required either: said once.
  const removed = new Set(
    changes.filter((c) => c.text.endsWith('` removed')).map((c) => `${c.where}|${c.text.slice(0, -' removed'.length)}`),
  );
  const said = changes.filter(
    (c) => !(c.text.endsWith('` no longer required') && removed.has(`${c.where}|${c.text.slice(0, -' no longer required'.length)}`)),
  );
  const rest = (document: Json) => ({ ...document, info: { ...(document.info as Json), version: undefined } });
  if (said.length === 0 && !isDeepStrictEqual(rest(released), rest(current)))
    said.push({ kind: 'documentation', where: 'the document', pointer: '', text: 'descriptions and components only' });
  const order: ChangeKind[] = ['breaking', 'removed', 'deprecated', 'added', 'changed', 'documentation'];
  return said.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
}

/**
 * The version that follows `version` for these changes (semver): major if any breaks or removes (a removal after its
 * sunset too: an SDK generated before loses a method), minor for any other change to what clients send or receive,
 * patch for documentation only; undefined when nothing changed.
 */
export function nextVersion(version: string, changes: Change[]): string | undefined {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  if (changes.some((c) => c.kind === 'breaking' || c.kind === 'removed')) return `${major + 1}.0.0`;
  if (changes.some((c) => c.kind !== 'documentation')) return `${major}.${minor + 1}.0`;
  return changes.length > 0 ? `${major}.${minor}.${patch + 1}` : undefined;
}
