import { ProblemError } from '../src/problems.js';
import type { Handler } from './types.js';

// The proof-of-work challenge and the human account endpoints come with the dashboard issue: an honest 501 until then.
const notYetAvailable = async (): Promise<never> => {
  throw new ProblemError('not-implemented', 'This operation is declared in the contract but is not available yet; see the README.');
};

export const getChallenge: Handler<'getChallenge'> = notYetAvailable;
export const signUp: Handler<'signUp'> = notYetAvailable;
export const logIn: Handler<'logIn'> = notYetAvailable;
export const sendContactMessage: Handler<'sendContactMessage'> = notYetAvailable;
