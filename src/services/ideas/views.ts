import type { Selectable } from 'kysely';
import type { components } from '../../../generated/api.js';
import type { IdeasTable } from '../../../db/schema.js';
import type { Queryable } from '../ledger.js';
import { expireDue, viewsOf, type Order } from '../orders/views.js';
import { decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page } from '../pagination.js';

export type Idea = components['schemas']['Idea'];
type IdeaMode = components['schemas']['IdeaMode'];
type IdeaRow = Selectable<IdeasTable>;

export function ideaView(row: IdeaRow, orders: Order[]): Idea {
  return {
    id: row.id,
    mode: row.mode as IdeaMode,
    market: row.market,
    rationale: row.rationale,
    orders,
    created_at: new Date(row.created_at).toISOString(),
    created_by_client_id: row.created_by_client_id,
  };
}

/** The ideas with their orders as they are now, in proposal order (order ids sort by proposal time and index). */
async function withOrders(db: Queryable, rows: IdeaRow[]): Promise<Idea[]> {
  if (rows.length === 0) return [];
  const orderRows = await db
    .selectFrom('orders')
    .selectAll()
    .where('idea_id', 'in', rows.map((r) => r.id))
    .orderBy('id')
    .execute();
  const byIdea = new Map<string, Order[]>(rows.map((r) => [r.id, []]));
  for (const order of await viewsOf(db, orderRows)) byIdea.get(order.idea_id!)!.push(order);
  return rows.map((row) => ideaView(row, byIdea.get(row.id)!));
}

export interface IdeaFilter {
  mode?: IdeaMode;
  market?: string;
  limit?: number;
  cursor?: string;
}

/** Newest first; keyset pagination on the time-ordered id. */
export async function listIdeas(db: Queryable, accountId: string, filter: IdeaFilter, now: Date): Promise<Page<Idea>> {
  await expireDue(db, accountId, now);
  const limit = filter.limit ?? DEFAULT_PAGE_SIZE;
  const after = decodeCursor<string>(filter.cursor, 'string');
  let query = db.selectFrom('ideas').selectAll().where('account_id', '=', accountId);
  if (filter.mode) query = query.where('mode', '=', filter.mode);
  if (filter.market) query = query.where('market', '=', filter.market);
  if (after) query = query.where('id', '<', after);
  const rows = await query.orderBy('id', 'desc').limit(limit + 1).execute();
  const page = toPage(rows, limit, (r) => r, (r) => r.id);
  return { data: await withOrders(db, page.data), next_cursor: page.next_cursor };
}

/** One idea of the account; another account's idea is simply not found. */
export async function getIdea(db: Queryable, accountId: string, id: string, now: Date): Promise<Idea | undefined> {
  await expireDue(db, accountId, now);
  const row = await db.selectFrom('ideas').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row ? (await withOrders(db, [row]))[0] : undefined;
}
