import type { components } from '../../generated/api.js';
import type { Queryable } from './ledger.js';

type KillSwitch = components['schemas']['KillSwitch'];

export const GLOBAL_SCOPE = 'global';
export const OFF: KillSwitch = { engaged: false, reason: null, engaged_at: null, engaged_by: null, level: null };

/** The switch in force for an account: the global one wins over the account's own. */
export async function effectiveKillSwitch(db: Queryable, accountId: string): Promise<KillSwitch> {
  const rows = await db.selectFrom('kill_switches').selectAll().where('scope', 'in', [GLOBAL_SCOPE, accountId]).where('engaged', '=', true).execute();
  const row = rows.find((r) => r.scope === GLOBAL_SCOPE) ?? rows[0];
  if (!row) return OFF;
  return {
    engaged: true,
    reason: row.reason,
    engaged_at: row.engaged_at ? new Date(row.engaged_at).toISOString() : null,
    engaged_by: row.engaged_by,
    level: row.scope === GLOBAL_SCOPE ? 'global' : 'account',
  };
}

/** Engages the switch of `scope` (an account id or global); engaging an engaged switch changes nothing. */
export async function engage(db: Queryable, scope: string, by: string, reason: string, at: Date): Promise<boolean> {
  const changed = await db
    .insertInto('kill_switches')
    .values({ scope, engaged: true, reason, engaged_at: at, engaged_by: by })
    .onConflict((c) => c.column('scope').doUpdateSet({ engaged: true, reason, engaged_at: at, engaged_by: by }).where('kill_switches.engaged', '=', false))
    .returning('scope')
    .executeTakeFirst();
  if (changed) await db.insertInto('kill_switch_events').values({ scope, action: 'engaged', at, by, reason }).execute();
  return Boolean(changed);
}

/** The account's own switch, engaged by one of its clients; answers the switch then in force. */
export async function engageAccount(db: Queryable, accountId: string, clientId: string, reason: string, at: Date): Promise<KillSwitch> {
  await engage(db, accountId, clientId, reason, at);
  return effectiveKillSwitch(db, accountId);
}

/** Releases the switch of `scope`. Only the human path (today the operator CLI) calls this; no API client can. */
export async function release(db: Queryable, scope: string, by: string, reason: string | null, at: Date): Promise<boolean> {
  const changed = await db
    .updateTable('kill_switches')
    .set({ engaged: false })
    .where('scope', '=', scope)
    .where('engaged', '=', true)
    .returning('scope')
    .executeTakeFirst();
  if (changed) await db.insertInto('kill_switch_events').values({ scope, action: 'released', at, by, reason }).execute();
  return Boolean(changed);
}
