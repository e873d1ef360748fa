import type { Handler } from './types.js';

export const generateIdeas: Handler<'generateIdeas'> = async ({ actor, body, services }) => ({ status: 201, body: await services.ideas.generate(actor, body) });

export const listIdeas: Handler<'listIdeas'> = async ({ actor, query, services }) => ({ status: 200, body: await services.ideas.list(actor, query) });

export const getIdea: Handler<'getIdea'> = async ({ actor, path, services }) => ({ status: 200, body: await services.ideas.get(actor, path.id) });
