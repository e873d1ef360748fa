import { effectiveKillSwitch, engageAccount } from '../src/services/kill-switch.js';
import { principalOf, type Handler } from './types.js';

export const getKillSwitch: Handler<'getKillSwitch'> = async (context) => ({
  status: 200,
  body: await effectiveKillSwitch(context.services.db.kysely, principalOf(context).accountId),
});

export const engageKillSwitch: Handler<'engageKillSwitch'> = async (context) => {
  const { accountId, clientId } = principalOf(context);
  return { status: 200, body: await engageAccount(context.services.db.kysely, accountId, clientId, context.body.reason, context.services.clock.now()) };
};
