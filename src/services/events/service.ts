import { sql } from 'kysely';
import type { components } from '../../../generated/api.js';
import type { Actor } from '../../auth/authorize.js';
import type { ServiceContext } from '../context.js';
import { NotFoundError } from '../errors.js';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor } from '../pagination.js';
import { TEST_EVENT_TYPE } from './outbox.js';

export type Event = components['schemas']['Event'];
type EventList = components['schemas']['EventList'];

export interface EventFilter {
  type?: string;
  limit?: number;
  cursor?: string;
}

/** A position in the feed: the (tx, seq) of the last event read, as decimal strings (xid8 and bigint). */
const POSITION = /^(\d{1,20}):(\d{1,20})$/;
const START = '0:0';

/**
 * Only what no transaction still running can precede: a transaction that commits later has a `tx` at or above the
 * oldest one running now, so a reader past a position never meets an event committed behind it.
 */
export const settled = sql<boolean>`tx < pg_snapshot_xmin(pg_current_snapshot())`;

export interface EventRow {
  id: string;
  account_id: string;
  type: string;
  data: unknown;
  created_at: Date | string;
}

export const eventView = (row: EventRow): Event =>
  ({ id: row.id, type: row.type, timestamp: new Date(row.created_at).toISOString(), account_id: row.account_id, data: row.data }) as Event;

/** The account's events: a feed in the order they became visible, and each one by id. */
export class EventService {
  constructor(private readonly ctx: ServiceContext) {}

  /**
   * The events after the cursor's position, oldest first, in (tx, seq) order and only those settled (see `settled`):
   * following `next_cursor` from the start reads every event once, whatever order transactions commit in.
   * `next_cursor` is never null: it is where to go on from, now or after waiting; `has_more` says whether more
   * events are there already.
   */
  async list(actor: Actor<'listEvents'>, filter: EventFilter): Promise<EventList> {
    const limit = filter.limit ?? DEFAULT_PAGE_SIZE;
    const position = decodeCursor<string>(filter.cursor, 'string', (key) => POSITION.test(key)) ?? START;
    const [, tx, seq] = POSITION.exec(position)!;
    let query = this.ctx.store.db
      .selectFrom('events')
      .select(['id', 'account_id', 'type', 'data', 'created_at', sql<string>`tx::text`.as('tx'), sql<string>`seq::text`.as('seq')])
      .where('account_id', '=', actor.accountId)
      .where(sql<boolean>`(tx, seq) > (${tx}::xid8, ${seq}::bigint)`)
      .where(settled)
      .where('type', '<>', TEST_EVENT_TYPE);
    if (filter.type) query = query.where('type', '=', filter.type);
    const rows = await query
      .orderBy(sql`tx`)
      .orderBy('seq')
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map(eventView),
      next_cursor: encodeCursor(last ? `${last.tx}:${last.seq}` : position),
      has_more: rows.length > limit,
    };
  }

  /** One event of the account; another account's is simply not found. */
  async get(actor: Actor<'getEvent'>, id: string): Promise<Event> {
    const row = await this.ctx.store.db
      .selectFrom('events')
      .select(['id', 'account_id', 'type', 'data', 'created_at'])
      .where('id', '=', id)
      .where('account_id', '=', actor.accountId)
      .where('type', '<>', TEST_EVENT_TYPE)
      .executeTakeFirst();
    if (!row) throw new NotFoundError(`There is no event ${id}.`);
    return eventView(row);
  }
}
