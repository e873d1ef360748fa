import type { Selectable } from 'kysely';
import type { components } from '../../generated/api.js';
import type { KillSwitchesTable } from '../../db/tables/trading.js';
import type { Actor } from '../auth/authorize.js';
import type { ServiceContext } from './context.js';
import { publish } from './events/outbox.js';
import type { Queryable } from './store.js';

type KillSwitch = components['schemas']['KillSwitch'];

export const GLOBAL_SCOPE = 'global';
export const OFF: KillSwitch = { engaged: false, reason: null, engaged_at: null, engaged_by: null, level: null };

type KillSwitchRow = Pick<Selectable<KillSwitchesTable>, 'scope' | 'reason' | 'engaged_at' | 'engaged_by'>;

/** The contract's view of an engaged switch row, or OFF when there is none. */
export function killSwitchView(row: KillSwitchRow | null | undefined): KillSwitch {
  if (!row) return OFF;
  return {
    engaged: true,
    reason: row.reason,
    engaged_at: row.engaged_at ? new Date(row.engaged_at).toISOString() : null,
    engaged_by: row.engaged_by,
    level: row.scope === GLOBAL_SCOPE ? 'global' : 'account',
  };
}

/** The switch in force for an account: the global one wins over the account's own. */
export async function effectiveKillSwitch(db: Queryable, accountId: string): Promise<KillSwitch> {
  const rows = await db
    .selectFrom('kill_switches')
    .selectAll()
    .where('scope', 'in', [GLOBAL_SCOPE, accountId])
    .where('engaged', '=', true)
    .execute();
  return killSwitchView(rows.find((r) => r.scope === GLOBAL_SCOPE) ?? rows[0]);
}

/** Engages the switch of `scope` (an account id or global); engaging an engaged switch changes nothing. */
export async function engage(db: Queryable, scope: string, by: string, reason: string, at: Date): Promise<boolean> {
  const changed = await db
    .insertInto('kill_switches')
    .values({ scope, engaged: true, reason, engaged_at: at, engaged_by: by })
    .onConflict((c) =>
      c.column('scope').doUpdateSet({ engaged: true, reason, engaged_at: at, engaged_by: by }).where('kill_switches.engaged', '=', false),
    )
    .returning('scope')
    .executeTakeFirst();
  if (changed) {
    await db.insertInto('kill_switch_events').values({ scope, action: 'engaged', at, by, reason }).execute();
    await publishSwitch(db, scope, 'kill_switch.engaged', at);
  }
  return Boolean(changed);
}

/** Releases the switch of `scope`. Only the human paths (the operator CLI, the dashboard) call this; no API client can. */
export async function release(db: Queryable, scope: string, by: string, reason: string | null, at: Date): Promise<boolean> {
  const changed = await db
    .updateTable('kill_switches')
    .set({ engaged: false })
    .where('scope', '=', scope)
    .where('engaged', '=', true)
    .returning('scope')
    .executeTakeFirst();
  if (changed) {
    await db.insertInto('kill_switch_events').values({ scope, action: 'released', at, by, reason }).execute();
    await publishSwitch(db, scope, 'kill_switch.released', at);
  }
  return Boolean(changed);
}

/**
 * The outbox events of a switch that changed, in its transaction: one for its account, or for every account when
 * the global switch changed (it stops or frees their approvals too). Each holds the switch as GET /v1/kill-switch
 * answers the account then: the one in force, the global one winning.
 */
async function publishSwitch(db: Queryable, scope: string, type: 'kill_switch.engaged' | 'kill_switch.released', at: Date): Promise<void> {
  const accounts =
    scope === GLOBAL_SCOPE ? (await db.selectFrom('accounts').select('id').orderBy('id').execute()).map((a) => a.id) : [scope];
  const engaged = await db
    .selectFrom('kill_switches')
    .selectAll()
    .where('engaged', '=', true)
    .where('scope', 'in', [GLOBAL_SCOPE, ...(scope === GLOBAL_SCOPE ? [] : [scope])])
    .execute();
  // Engaged switches by scope: the global one under `global`, an account's under its id (no account id is `global`).
  const byScope = new Map(engaged.map((row) => [row.scope, row]));
  const global = byScope.get(GLOBAL_SCOPE);
  const own =
    scope === GLOBAL_SCOPE && !global
      ? new Map(
          (await db.selectFrom('kill_switches').selectAll().where('engaged', '=', true).where('scope', '<>', GLOBAL_SCOPE).execute()).map(
            (row) => [row.scope, row],
          ),
        )
      : byScope;
  const CHUNK = 1000;
  for (let i = 0; i < accounts.length; i += CHUNK) {
    await publish(
      db,
      accounts.slice(i, i + CHUNK).map((accountId) => ({ accountId, type, at, data: killSwitchView(global ?? own.get(accountId)) })),
    );
  }
}

/**
 * The account's kill switch. API clients read it and engage it; only a signed-in human releases it (the
 * `releaseKillSwitch` action, which `authorize` grants on the dashboard channel alone).
 */
export class KillSwitchService {
  constructor(
    private readonly ctx: ServiceContext,
    /** After the account's switch engaged: its orders at a connected broker are cancelled (src/services/brokerage/halt.ts). */
    private readonly engaged: (accountId: string, killSwitch: KillSwitch) => Promise<unknown> = () => Promise.resolve(),
  ) {}

  get(actor: Actor<'getKillSwitch'>): Promise<KillSwitch> {
    return effectiveKillSwitch(this.ctx.store.db, actor.accountId);
  }

  /** Engages the account's own switch; answers the switch then in force (the global one when that is engaged). */
  async engage(actor: Actor<'engageKillSwitch'>, reason: string): Promise<KillSwitch> {
    const { store, clock } = this.ctx;
    const engaged = await store.transaction(async (trx) => {
      await engage(trx, actor.accountId, actor.clientId, reason, clock.now());
      return effectiveKillSwitch(trx, actor.accountId);
    });
    // The account's orders at its broker are cancelled now (the instance's sweep does it too, for every other way a
    // switch engages: the operator CLI, the global switch, the daily loss limit).
    await this.engaged(actor.accountId, engaged).catch(() => undefined);
    return engaged;
  }

  /** Releases the account's own switch (a global one stays; operators release it); answers the switch then in force. */
  async release(actor: Actor<'releaseKillSwitch'>, reason: string | null): Promise<KillSwitch> {
    const { store, clock } = this.ctx;
    return store.transaction(async (trx) => {
      await release(trx, actor.accountId, actor.clientId, reason, clock.now());
      return effectiveKillSwitch(trx, actor.accountId);
    });
  }
}
