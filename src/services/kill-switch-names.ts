import { sql } from 'kysely';
import type { components } from '../../generated/api.js';
import { DASHBOARD_CLIENT_ID, type Actor } from '../auth/authorize.js';
import { effectiveKillSwitch, GLOBAL_SCOPE } from './kill-switch.js';
import type { Queryable } from './store.js';

type KillSwitch = components['schemas']['KillSwitch'];

/** One engagement or release, with who did it by name. */
export interface KillSwitchEntry {
  action: 'engaged' | 'released';
  level: 'account' | 'global';
  at: string;
  by: string;
  reason: string | null;
}

/** The switch in force with the name of who engaged it, as a person reads it. */
export interface NamedKillSwitch extends KillSwitch {
  engaged_by_name: string | null;
}

/** Who `by` is, in words: the account holder (dashboard), an API client by its name, the daily loss limit, an operator. */
export function nameOf(by: string | null, clientName: string | null, personName: string | null): string {
  if (by === null) return 'unknown';
  if (by === DASHBOARD_CLIENT_ID) return personName ?? 'the account holder';
  if (by === 'system') return 'the service (daily loss limit)';
  if (by === 'operator') return 'an operator';
  return clientName ? `${clientName} (API client)` : 'a deleted API client';
}

const names = (column: 'k.by' | 'k.engaged_by', accountId: string) =>
  [
    sql<string | null>`(select c.name from api_clients c where c.client_id = ${sql.ref(column)})`.as('client_name'),
    sql<string | null>`(select a.name from accounts a where a.id = ${accountId})`.as('person_name'),
  ] as const;

/** What the dashboard shows of the kill switch: who, by name, and the history of engagements and releases. */
export class KillSwitchNames {
  constructor(private readonly db: () => Queryable) {}

  async state(actor: Actor<'getKillSwitch'>): Promise<NamedKillSwitch> {
    const state = await effectiveKillSwitch(this.db(), actor.accountId);
    if (!state.engaged) return { ...state, engaged_by_name: null };
    const scope = state.level === 'global' ? GLOBAL_SCOPE : actor.accountId;
    const row = await this.db()
      .selectFrom('kill_switches as k')
      .select(names('k.engaged_by', actor.accountId))
      .where('k.scope', '=', scope)
      .executeTakeFirst();
    return { ...state, engaged_by_name: nameOf(state.engaged_by, row?.client_name ?? null, row?.person_name ?? null) };
  }

  /** The account's and the global switch's engagements and releases, newest first. */
  async history(actor: Actor<'getKillSwitch'>, limit: number): Promise<KillSwitchEntry[]> {
    const rows = await this.db()
      .selectFrom('kill_switch_events as k')
      .select(['k.scope', 'k.action', 'k.at', 'k.by', 'k.reason'])
      .select(names('k.by', actor.accountId))
      .where('k.scope', 'in', [actor.accountId, GLOBAL_SCOPE])
      .orderBy('k.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      action: r.action,
      level: r.scope === GLOBAL_SCOPE ? 'global' : 'account',
      at: new Date(r.at).toISOString(),
      by: nameOf(r.by, r.client_name, r.person_name),
      reason: r.reason,
    }));
  }
}
