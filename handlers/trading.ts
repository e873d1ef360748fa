import { notYetAvailable, type Handler } from './types.js';

// Ideas (issue 3) are being built; they move to handlers/ideas.ts when done.
export const listIdeas: Handler<'listIdeas'> = async () => notYetAvailable();
export const generateIdeas: Handler<'generateIdeas'> = async () => notYetAvailable();
export const getIdea: Handler<'getIdea'> = async () => notYetAvailable();
