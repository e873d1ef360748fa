import type { Diff } from 'api-smart-diff';
import { resolved } from '../../src/contract/refs.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document is JSON of any shape

export type ChangeKind = 'breaking' | 'added' | 'changed' | 'deprecated' | 'removed' | 'documentation';

export interface Change {
  kind: ChangeKind;
  /** The rule a breaking change breaks (docs/contract.md lists them). */
  rule?: string;
  /** The operation (`GET /v1/brokers (listBrokers)`), `webhook order.filled` or `problem types`. */
  where: string;
  /** A JSON pointer into the bundled document (through `$ref`s). */
  pointer: string;
  /** What changed, in a partner's words, without `where`. */
  text: string;
  note?: string;
}

/** Webhooks are compared as operations whose answer is the payload the service sends (diff.ts): their path key. */
export const WEBHOOK_PREFIX = 'webhook:';

/** Where in the contract a diff lies, in a partner's words, and what it changed there. */
export interface Place {
  /** `GET /v1/brokers (listBrokers)`, or `webhook order.filled`. */
  where: string;
  /** Requests are input (narrowing breaks), answers and webhook payloads output (removing breaks). */
  side: 'input' | 'output' | 'operation';
  /** `query parameter \`limit\``, `request body`, `response 200`, `payload`; empty for the operation itself. */
  part: string;
  /** What was changed in that part, from the first key after it: `schema`, `required`, `headers`, `x-problem-types`… */
  section: string;
  /** The member of a schema the change is in, as a client reads it: `data[].side`; empty for the schema itself. */
  field: string;
  /** The last key of the diff's path (`enum`, `type`, `maximum`, `properties`, `required`, `operationId`…). */
  key: string;
  /** The diff's path as a JSON pointer into the bundled document (through `$ref`s, which the comparison follows). */
  pointer: string;
}

const token = (key: string | number) => String(key).replaceAll('~', '~0').replaceAll('/', '~1');
export const pointerOf = (path: (string | number)[]) => path.map((key) => `/${token(key)}`).join('');

/** The label of an operation (or webhook) in a document: method, path and operationId. */
export function operationLabel(document: Json, path: string, method: string): string {
  if (path.startsWith(WEBHOOK_PREFIX)) return `webhook ${path.slice(WEBHOOK_PREFIX.length)}`;
  const item = (document.paths as Json | undefined)?.[path] as Json | undefined;
  const operationId = (item?.[method] as Json | undefined)?.operationId as string | undefined;
  return `${method.toUpperCase()} ${path}${operationId ? ` (${operationId})` : ''}`;
}

/** A schema path (`properties/data/items/properties/side/enum/1`) as the member a client reads and the last key. */
function fieldOf(schemaPath: (string | number)[], diff: Diff): { field: string; key: string; name?: string } {
  let field = '';
  let key = 'schema';
  for (let i = 0; i < schemaPath.length; i++) {
    const step = String(schemaPath[i]);
    const next = schemaPath[i + 1];
    if (step === 'properties' && next !== undefined) {
      field = field ? `${field}.${String(next)}` : String(next);
      key = 'properties';
      i++;
    } else if (step === 'items') field = `${field}[]`;
    else if (step === 'additionalProperties') field = `${field}{*}`;
    else if (['allOf', 'oneOf', 'anyOf', 'prefixItems'].includes(step) && next !== undefined) i++;
    else {
      key = step;
      break;
    }
  }
  const value = (diff.action === 'remove' ? diff.before : diff.after) as unknown;
  return { field, key, ...(key === 'required' && typeof value === 'string' ? { name: value } : {}) };
}

/** Where a diff of the compared documents lies, or undefined when it is outside the operations (components, info). */
export function placeOf(diff: Diff, before: Json, after: Json): Place | undefined {
  const [root, path, method, ...rest] = diff.path.map(String);
  if (root !== 'paths' || path === undefined) return undefined;
  const webhook = path.startsWith(WEBHOOK_PREFIX);
  const pointer = webhook
    ? pointerOf(['webhooks', path.slice(WEBHOOK_PREFIX.length), method ?? 'post', 'requestBody', ...rest.slice(2)])
    : pointerOf(diff.path);
  const where = operationLabel(method === undefined ? before : diff.action === 'add' ? after : before, path, method ?? '');
  const place = (side: Place['side'], part: string, section: string, field = '', key = section): Place => ({
    where,
    side,
    part,
    section,
    field,
    key,
    pointer,
  });
  if (method === undefined || rest.length === 0) return place('operation', '', 'operation');
  const [first, second, third, fourth, ...more] = rest;
  if (first === 'parameters' && second !== undefined) {
    // A whole parameter is the diff's value; a change inside one is at its index in the document it was compared in.
    const inDocument = (document: Json) =>
      ((((document.paths as Json)[path] as Json | undefined)?.[method] as Json | undefined)?.parameters as Json[] | undefined)?.[
        Number(second)
      ];
    const document = diff.action === 'add' ? after : before;
    const node =
      third === undefined ? ((diff.action === 'add' ? diff.after : diff.before) as Json) : (inDocument(document) ?? inDocument(after));
    const parameter = node ? resolved<Json>(document, node) : { in: 'a', name: second };
    const part = `${String(parameter.in)} parameter \`${String(parameter.name)}\``;
    if (third === 'schema') {
      const { field, key } = fieldOf(rest.slice(3), diff);
      return place('input', part, 'schema', field, key);
    }
    return place('input', part, third ?? 'parameter', '', third === undefined ? 'parameter' : rest.at(-1)!);
  }
  if (first === 'requestBody') {
    if (third === undefined || fourth !== 'schema') return place('input', 'request body', second ?? 'requestBody', '', rest.at(-1));
    const { field, key, name } = fieldOf(more, diff);
    return place('input', 'request body', 'schema', name ? (field ? `${field}.${name}` : name) : field, key);
  }
  if (first === 'responses' && second !== undefined) {
    const part = webhook ? 'payload' : `response ${second}`;
    if (third === 'content' && rest[4] === 'schema') {
      const { field, key, name } = fieldOf(rest.slice(5), diff);
      return place('output', part, 'schema', name ? (field ? `${field}.${name}` : name) : field, key);
    }
    if (third === 'headers' && fourth !== undefined) return place('output', part, 'headers', fourth, more.length ? more.at(-1)! : 'header');
    return place('output', part, third ?? 'response', '', third === undefined ? 'response' : rest.at(-1)!);
  }
  return place('operation', '', first!, '', rest.at(-1));
}

const shown = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `\`${text.length > 60 ? `${text.slice(0, 57)}...` : text}\``;
};

/** What a diff changed at its place, in words (without the place itself): `new field \`extra\``. */
export function detailOf(diff: Diff, place: Place): string {
  const { action } = diff;
  const [before, after] = [diff.before as unknown, diff.after as unknown];
  const member = place.field ? `\`${place.field}\`` : place.side === 'input' ? 'the body' : 'the answer';
  const verb = { add: 'added', remove: 'removed', replace: 'changed', rename: 'renamed' }[action];
  if (place.section === 'operation' && place.key === 'operation') return action === 'add' ? 'new operation' : 'operation removed';
  if (place.section === 'schema') {
    switch (place.key) {
      case 'properties':
        return action === 'add' ? `new field ${member}` : action === 'remove' ? `field ${member} removed` : `field ${member} ${verb}`;
      case 'required':
        return action === 'add' ? `field ${member} now required` : `field ${member} no longer required`;
      case 'enum':
        if (action === 'replace') return `value ${shown(before)} of ${member} replaced by ${shown(after)}`;
        return action === 'add' ? `value ${shown(after)} added to ${member}` : `value ${shown(before)} removed from ${member}`;
      case 'type':
        return action === 'replace' ? `type of ${member}: ${shown(before)} → ${shown(after)}` : `type of ${member} ${verb}`;
      default:
        if (action === 'replace') return `${member}: ${place.key} ${shown(before)} → ${shown(after)}`;
        return `${member}: ${place.key} ${action === 'add' ? shown(after) : shown(before)} ${verb}`;
    }
  }
  if (place.section === 'headers') return `header \`${place.field}\` ${action === 'add' ? 'added' : verb}`;
  if (['parameter', 'response', 'requestBody'].includes(place.key) && action !== 'replace')
    return action === 'add' ? `new ${place.part || place.key}` : `${place.part || place.key} removed`;
  if (place.key === 'required') return action === 'remove' ? 'no longer required' : 'now required';
  if (place.key === 'deprecated') return after === true ? 'deprecated' : 'no longer deprecated';
  if (action === 'replace') return `${place.key} ${shown(before)} → ${shown(after)}`;
  return `${place.key} ${action === 'add' ? shown(after) : shown(before)} ${verb}`;
}
