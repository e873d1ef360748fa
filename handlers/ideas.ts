import { ProblemError } from '../src/problems.js';
import { generateIdeas as generate } from '../src/services/ideas/generate.js';
import { getIdea as ideaOf, listIdeas as ideasOf } from '../src/services/ideas/views.js';
import { principalOf, type Handler } from './types.js';

export const generateIdeas: Handler<'generateIdeas'> = async (context) => {
  const { accountId, clientId } = principalOf(context);
  return { status: 201, body: await generate(context.services, { accountId, clientId }, context.body) };
};

export const listIdeas: Handler<'listIdeas'> = async (context) => ({
  status: 200,
  body: await ideasOf(context.services.db.kysely, principalOf(context).accountId, context.query, context.services.clock.now()),
});

export const getIdea: Handler<'getIdea'> = async (context) => {
  const idea = await ideaOf(context.services.db.kysely, principalOf(context).accountId, context.path.id, context.services.clock.now());
  if (!idea) throw new ProblemError('not-found', `There is no idea ${context.path.id}.`);
  return { status: 200, body: idea };
};
