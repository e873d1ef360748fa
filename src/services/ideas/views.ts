import type { Selectable } from 'kysely';
import type { components } from '../../../generated/api.js';
import type { IdeasTable } from '../../../db/tables/trading.js';
import { viewsOf, type Order } from '../orders/views.js';
import type { Queryable } from '../store.js';

export type Idea = components['schemas']['Idea'];
type IdeaMode = components['schemas']['IdeaMode'];
export type IdeaRow = Selectable<IdeasTable>;

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
export async function withOrders(db: Queryable, rows: IdeaRow[], now: Date): Promise<Idea[]> {
  if (rows.length === 0) return [];
  const orderRows = await db
    .selectFrom('orders')
    .selectAll()
    .where(
      'idea_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('id')
    .execute();
  const byIdea = new Map<string, Order[]>(rows.map((r) => [r.id, []]));
  for (const order of await viewsOf(db, orderRows, now)) byIdea.get(order.idea_id!)!.push(order);
  return rows.map((row) => ideaView(row, byIdea.get(row.id)!));
}

export interface IdeaFilter {
  mode?: IdeaMode;
  market?: string;
  limit?: number;
  cursor?: string;
}
