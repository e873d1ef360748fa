// The kill switch reaches the broker: an engaged switch cancels the account's orders there (they end `cancelled`
// when the broker confirms: its update, or the poll right after), and an order not yet sent is never sent.
import type { components } from '../../../generated/api.js';
import type { BrokerPort } from '../../brokers/port.js';
import type { ServiceContext } from '../context.js';
import { record } from '../orders/transitions.js';
import { lockOrder } from '../orders/trigger-state.js';
import { applyBrokerOrder } from './apply.js';
import { brokerName } from './directory.js';
import { AT_BROKER } from './progress.js';

/** When the switch in force on the account is engaged: cancels its orders at the broker. Answers whether it was. */
export async function haltAtBroker(
  ctx: ServiceContext,
  accountId: string,
  port: BrokerPort,
  killSwitch: components['schemas']['KillSwitch'],
): Promise<boolean> {
  const { store, clock } = ctx;
  if (!killSwitch.engaged) return false;
  const open = await store.db
    .selectFrom('orders')
    .select(['id', 'next_submit_at'])
    .where('account_id', '=', accountId)
    .where('status', 'in', [...AT_BROKER])
    .where('broker_id', '=', port.id)
    .orderBy('id')
    .execute();
  const name = brokerName(port.id);
  for (const { id, next_submit_at } of open) {
    if (next_submit_at !== null) {
      await store.transaction(async (trx) => {
        const state = await lockOrder(trx, accountId, id, 'system');
        if (!state || state.row.status !== 'submitted' || state.row.next_submit_at === null) return;
        const reason = `the ${killSwitch.level} kill switch was engaged before the order reached ${name}; it was not sent`;
        await record(trx, state.row, [{ to: 'cancelled', at: clock.now(), clientId: null, reason }], state, { next_submit_at: null });
      });
      // A try in flight may still reach the broker: ask it to cancel whatever it holds under the id.
      await port.cancel(id).catch(() => undefined);
      continue;
    }
    await port.cancel(id);
    const order = await port.orderByClientId(id);
    if (order) await applyBrokerOrder(store, accountId, order, name, clock.now());
  }
  return true;
}
