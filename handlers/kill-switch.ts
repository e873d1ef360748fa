import type { Handler } from './types.js';

export const getKillSwitch: Handler<'getKillSwitch'> = async ({ actor, services }) => ({ status: 200, body: await services.killSwitch.get(actor) });

export const engageKillSwitch: Handler<'engageKillSwitch'> = async ({ actor, body, services }) => ({
  status: 200,
  body: await services.killSwitch.engage(actor, body.reason),
});
