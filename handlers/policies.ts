import type { Handler } from './types.js';

export const getCurrentDisclosure: Handler<'getCurrentDisclosure'> = async ({ actor, services }) => ({ status: 200, body: services.policies.currentDisclosure(actor) });

export const listPolicies: Handler<'listPolicies'> = async ({ actor, query, services }) => ({ status: 200, body: await services.policies.list(actor, query) });

export const createPolicy: Handler<'createPolicy'> = async ({ actor, body, services }) => {
  const policy = await services.policies.create(actor, body);
  return { status: 201, body: policy, headers: { Location: `/v1/policies/${policy.version}` } };
};

export const getCurrentPolicy: Handler<'getCurrentPolicy'> = async ({ actor, services }) => ({ status: 200, body: await services.policies.current(actor) });

export const getPolicy: Handler<'getPolicy'> = async ({ actor, path, services }) => ({ status: 200, body: await services.policies.get(actor, Number(path.version)) });
