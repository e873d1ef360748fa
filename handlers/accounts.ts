import { notYetAvailable, type Handler } from './types.js';

// The proof-of-work challenge and the human account endpoints come with the dashboard issue.
export const getChallenge: Handler<'getChallenge'> = async () => notYetAvailable();
export const signUp: Handler<'signUp'> = async () => notYetAvailable();
export const logIn: Handler<'logIn'> = async () => notYetAvailable();
export const sendContactMessage: Handler<'sendContactMessage'> = async () => notYetAvailable();
