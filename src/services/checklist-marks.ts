import type { Actor } from '../auth/authorize.js';
import type { Clock } from '../clock.js';
import type { Queryable } from './store.js';

/**
 * Steps of a person's first hour that leave no record of their own (following the dashboard's link to the API
 * docs): marked once, by the signed-in person, and read by the Overview's checklist.
 */
export class ChecklistMarks {
  constructor(
    private readonly db: () => Queryable,
    private readonly clock: Clock,
  ) {}

  async mark(actor: Actor<'listClients'>, item: string): Promise<void> {
    await this.db()
      .insertInto('checklist_marks')
      .values({ account_id: actor.accountId, item, at: this.clock.now() })
      .onConflict((c) => c.columns(['account_id', 'item']).doNothing())
      .execute();
  }

  async marked(actor: Actor<'listClients'>): Promise<Set<string>> {
    const rows = await this.db().selectFrom('checklist_marks').select('item').where('account_id', '=', actor.accountId).execute();
    return new Set(rows.map((r) => r.item));
  }
}
