import { ProblemError } from '../src/problems.js';
import { currentDisclosure } from '../src/services/disclosures.js';
import * as policies from '../src/services/policies.js';
import { principalOf, type Handler } from './types.js';

export const getCurrentDisclosure: Handler<'getCurrentDisclosure'> = async () => ({ status: 200, body: currentDisclosure() });

export const listPolicies: Handler<'listPolicies'> = async (context) => {
  const { accountId } = principalOf(context);
  const { limit, cursor } = context.query;
  return { status: 200, body: await policies.listPolicies(context.services.db.kysely, accountId, { limit, cursor }) };
};

export const createPolicy: Handler<'createPolicy'> = async (context) => {
  const { accountId, clientId } = principalOf(context);
  const { services, request } = context;
  const policy = await policies.createPolicy(services.db.kysely, {
    accountId,
    clientId,
    ip: request.ip,
    userAgent: request.userAgent,
    body: context.body,
    now: services.clock.now(),
    prices: services.prices,
  });
  return { status: 201, body: policy, headers: { Location: `/v1/policies/${policy.version}` } };
};

export const getCurrentPolicy: Handler<'getCurrentPolicy'> = async (context) => {
  const { accountId } = principalOf(context);
  const policy = await policies.getCurrentPolicy(context.services.db.kysely, accountId);
  if (!policy) throw new ProblemError('not-found', 'The account has no policy yet; create one with POST /v1/policies.');
  return { status: 200, body: policy };
};

export const getPolicy: Handler<'getPolicy'> = async (context) => {
  const { accountId } = principalOf(context);
  const version = Number(context.path.version);
  const policy = await policies.getPolicy(context.services.db.kysely, accountId, version);
  if (!policy) throw new ProblemError('not-found', `Policy version ${version} does not exist.`);
  return { status: 200, body: policy };
};
