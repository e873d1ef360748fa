import { ProblemError } from '../problems.js';

export const DEFAULT_PAGE_SIZE = 20;

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Cursors are opaque to clients: the sort key of the last item returned, base64url-encoded JSON. */
export function encodeCursor(key: string | number): string {
  return Buffer.from(JSON.stringify({ k: key })).toString('base64url');
}

export function decodeCursor<K extends string | number>(cursor: string | undefined, kind: 'string' | 'number'): K | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k?: unknown };
    if (typeof parsed.k === kind) return parsed.k as K;
  } catch {
    // falls through to the problem below
  }
  throw new ProblemError('validation-error', 'The request has 1 invalid field.', {
    errors: [{ pointer: '/query/cursor', detail: 'is not a cursor this API returned' }],
  });
}

/** Rows fetched with `limit + 1`: the extra row only says whether there is a next page. */
export function toPage<R, T>(rows: R[], limit: number, view: (row: R) => T, keyOf: (row: R) => string | number): Page<T> {
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  return { data: pageRows.map(view), next_cursor: more ? encodeCursor(keyOf(pageRows[pageRows.length - 1]!)) : null };
}
