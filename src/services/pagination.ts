import { sql, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import { invalidField } from './errors.js';

export const DEFAULT_PAGE_SIZE = 20;

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface PageRequest {
  limit?: number;
  cursor?: string;
}

const NOT_OUR_CURSOR = 'is not a cursor this API returned';

/** Cursors are opaque to clients: the sort key of the last item returned, base64url-encoded JSON. */
export function encodeCursor(key: string | number): string {
  return Buffer.from(JSON.stringify({ k: key })).toString('base64url');
}

export function decodeCursor<K extends string | number>(
  cursor: string | undefined,
  kind: 'string' | 'number',
  valid: (key: K) => boolean = () => true,
): K | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k?: unknown };
    if (typeof parsed.k === kind && valid(parsed.k as K)) return parsed.k as K;
  } catch {
    // falls through to the error below
  }
  throw invalidField('cursor', NOT_OUR_CURSOR);
}

/** Rows fetched with `limit + 1`: the extra row only says whether there is a next page. */
export function toPage<R, T>(rows: R[], limit: number, view: (row: R) => T, keyOf: (row: R) => string | number): Page<T> {
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  return { data: pageRows.map(view), next_cursor: more ? encodeCursor(keyOf(pageRows[pageRows.length - 1]!)) : null };
}

/**
 * One page of `query`, descending on `column` — a unique key (a time-ordered id, a version, a date) with an index
 * per account — starting after the cursor's key, so a page costs the same at any depth.
 */
export async function keysetPage<R, K extends string | number>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table or join of the schema; the key column is checked against R
  query: SelectQueryBuilder<Database, any, R>,
  column: keyof R & string,
  kind: 'string' | 'number',
  page: PageRequest,
  valid?: (key: K) => boolean,
): Promise<Page<R>> {
  const limit = page.limit ?? DEFAULT_PAGE_SIZE;
  const after = decodeCursor<K>(page.cursor, kind, valid);
  const ref = sql.ref<K>(column);
  const filtered = after === undefined ? query : query.where(ref, '<', after as never);
  const rows = await filtered
    .orderBy(ref, 'desc')
    .limit(limit + 1)
    .execute();
  return toPage(
    rows,
    limit,
    (row) => row,
    (row) => row[column] as K,
  );
}
