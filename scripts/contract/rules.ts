import { resolved } from '../../src/contract/refs.js';
import { operationLabel, pointerOf, type Change, type Json } from './describe.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of a document by `METHOD path`, with its path and method. */
export function operationsOf(document: Json): Map<string, { path: string; method: string; operation: Json }> {
  const operations = new Map<string, { path: string; method: string; operation: Json }>();
  for (const [path, item] of Object.entries((document.paths ?? {}) as Json))
    for (const method of METHODS)
      if ((item as Json | undefined)?.[method])
        operations.set(`${method} ${path}`, { path, method, operation: (item as Json)[method] as Json });
  return operations;
}

const breaking = (rule: string, where: string, pointer: string, text: string): Change => ({ kind: 'breaking', rule, where, pointer, text });

/**
 * An SDK calls an operation by its operationId (the method's name): a new one for the same method and path breaks
 * every caller, though the request on the wire is the same. (api-smart-diff calls it an annotation.)
 */
export function operationIdRule(before: Json, after: Json): Change[] {
  const now = operationsOf(after);
  const changes: Change[] = [];
  for (const [key, { path, method, operation }] of operationsOf(before)) {
    const renamed = now.get(key)?.operation.operationId as string | undefined;
    if (renamed !== undefined && renamed !== operation.operationId)
      changes.push(
        breaking(
          'operation-id-changed',
          operationLabel(before, path, method),
          pointerOf(['paths', path, method, 'operationId']),
          `operationId \`${String(operation.operationId)}\` renamed \`${renamed}\``,
        ),
      );
  }
  return changes;
}

/** The scope sets of an operation's security, any one of which admits a caller (`[]` is anonymous access). */
function requirements(document: Json, operation: Json): Map<string, string[]>[] {
  const declared = (operation.security ?? document.security ?? []) as Record<string, string[]>[];
  if (declared.length === 0) return [new Map<string, string[]>()];
  return declared.map((requirement) => new Map<string, string[]>(Object.entries(requirement)));
}

/** Whether a caller who met `old` meets `now` too: the same schemes, and no scope it did not need before. */
const admits = (now: Map<string, string[]>, old: Map<string, string[]>) =>
  [...now].every(([scheme, scopes]) => old.has(scheme) && scopes.every((scope) => old.get(scheme)!.includes(scope)));

/**
 * A changed security requirement breaks every caller it no longer admits: a scope added, a scheme changed, anonymous
 * access withdrawn. Loosening one (a scope no longer needed) passes. (api-smart-diff calls an added scope non-breaking.)
 */
export function securityRule(before: Json, after: Json): Change[] {
  const now = operationsOf(after);
  const changes: Change[] = [];
  for (const [key, { path, method, operation }] of operationsOf(before)) {
    const current = now.get(key);
    if (!current) continue;
    const then = requirements(before, operation);
    const later = requirements(after, current.operation);
    const shut = then.filter((old) => !later.some((requirement) => admits(requirement, old)));
    if (shut.length === 0) continue;
    const words = (sets: Map<string, string[]>[]) =>
      sets
        .map((set) => (set.size === 0 ? 'anonymous' : [...set].map(([s, scopes]) => `${s}[${scopes.join(' ')}]`).join(' + ')))
        .join(' or ');
    changes.push(
      breaking(
        'security-changed',
        operationLabel(before, path, method),
        pointerOf(['paths', path, method, 'security']),
        `security ${words(then)} → ${words(later)}: a caller with ${words(shut)} is refused now`,
      ),
    );
  }
  return changes;
}

/** The problem types each response of an operation declares (its `x-problem-types`), by status. */
function problemTypesOf(document: Json, operation: Json): Map<string, string[]> {
  const byStatus = new Map<string, string[]>();
  for (const [status, response] of Object.entries((operation.responses ?? {}) as Json))
    byStatus.set(status, (resolved<Json>(document, response as Json)['x-problem-types'] ?? []) as string[]);
  return byStatus;
}

/**
 * Problem types are the contract's error codes (the top-level `x-problem-types` catalogue and each error response's
 * list): one removed from the catalogue or from a response, or a changed status, breaks a client that handles it. New
 * ones are additions. (api-smart-diff does not know the extension: it compares the catalogue as an array.)
 */
export function problemTypeRules(before: Json, after: Json): Change[] {
  const changes: Change[] = [];
  const catalogue = (document: Json) =>
    new Map(((document['x-problem-types'] ?? []) as Json[]).map((t, i): [string, Json] => [t.slug as string, { ...t, i }]));
  const [then, now] = [catalogue(before), catalogue(after)];
  for (const [slug, type] of then) {
    const pointer = pointerOf(['x-problem-types', type.i as number]);
    const later = now.get(slug);
    if (!later) changes.push(breaking('problem-type-removed', `problem type \`${slug}\``, pointer, 'problem type removed'));
    else if (later.status !== type.status)
      changes.push(
        breaking(
          'problem-type-changed',
          `problem type \`${slug}\``,
          pointer,
          `problem type status ${String(type.status)} → ${String(later.status)}`,
        ),
      );
  }
  for (const [slug, type] of now)
    if (!then.has(slug))
      changes.push({
        kind: 'added',
        where: `problem type \`${slug}\``,
        pointer: pointerOf(['x-problem-types', type.i as number]),
        text: 'new problem type',
      });
  const current = operationsOf(after);
  for (const [key, { path, method, operation }] of operationsOf(before)) {
    const other = current.get(key);
    if (!other) continue;
    const later = problemTypesOf(after, other.operation);
    for (const [status, slugs] of problemTypesOf(before, operation)) {
      if (!later.has(status)) continue; // the status itself is gone: api-smart-diff reports it
      for (const slug of slugs.filter((s) => !later.get(status)!.includes(s)))
        changes.push(
          breaking(
            'response-problem-type-removed',
            operationLabel(before, path, method),
            pointerOf(['paths', path, method, 'responses', status, 'x-problem-types']),
            `response ${status}: problem type \`${slug}\` no longer declared`,
          ),
        );
    }
  }
  return changes;
}
