import { effectiveKillSwitch, engage } from '../src/services/kill-switch.js';
import { principalOf, type Handler } from './types.js';

export const getKillSwitch: Handler<'getKillSwitch'> = async (context) => ({
  status: 200,
  body: await effectiveKillSwitch(context.services.db.kysely, principalOf(context).accountId),
});

export const engageKillSwitch: Handler<'engageKillSwitch'> = async (context) => {
  const { accountId, clientId } = principalOf(context);
  const db = context.services.db.kysely;
  await engage(db, accountId, clientId, context.body.reason, context.services.clock.now());
  return { status: 200, body: await effectiveKillSwitch(db, accountId) };
};
