import type { components } from '../../generated/api.js';
import type { Origin } from '../auth/authorize.js';
import type { CheckedInput, Contract, OperationInput } from '../contract/operations.js';
import { ProblemError } from '../problems.js';
import { SOLUTION_FORMAT, type ChallengePurpose } from '../services/challenges.js';
import { InvalidInputError, type FieldProblem } from '../services/errors.js';
import type { Services } from '../services/index.js';

type Schemas = components['schemas'];

/** The header a solved proof-of-work challenge travels in, on every channel (the dashboard sends its form's solution as it). */
export const CHALLENGE_HEADER = 'x-ias-challenge';
type Solution = { [CHALLENGE_HEADER]?: string };

/** Who calls an anonymous operation: from where, and (a log-in in the dashboard) the session it replaces. */
export interface PersonCaller {
  origin: Origin;
  replacing?: string;
}

interface PersonOperations {
  getChallenge: { input: { query: { purpose?: ChallengePurpose } }; value: Schemas['Challenge'] };
  signUp: { input: { body: Schemas['SignupRequest']; header: Solution }; value: Schemas['Account'] };
  logIn: { input: { body: Schemas['LoginRequest']; header: Solution }; value: Schemas['DashboardSession'] };
  sendContactMessage: { input: { body: Schemas['ContactRequest']; header: Solution }; value: Schemas['ContactReceipt'] };
}

/** The anonymous operations a person reaches (REST's handlers, and the dashboard's sign-up, log-in and contact pages). */
export type PersonOperationId = keyof PersonOperations;
/** Their input as the contract checked it. */
export type PersonInput<K extends PersonOperationId> = PersonOperations[K]['input'];
export type PersonValue<K extends PersonOperationId> = PersonOperations[K]['value'];
export type PersonUseCase<K extends PersonOperationId> = (
  services: Services,
  caller: PersonCaller,
  input: PersonInput<K>,
) => Promise<PersonValue<K>>;

/**
 * The one binding of the anonymous operations a person calls to their use cases, for REST and the dashboard: which
 * use case takes which part of the input (the proof-of-work solution is the X-IAS-Challenge header's).
 */
export const personUseCases: { [K in PersonOperationId]: PersonUseCase<K> } = {
  getChallenge: (s, { origin }, { query }) => s.challenges.issue(origin, query.purpose),
  signUp: (s, { origin }, { body, header }) => s.people.signUp(body, header[CHALLENGE_HEADER], origin),
  logIn: (s, { origin, replacing }, { body, header }) => s.people.logIn(body, header[CHALLENGE_HEADER], origin, replacing),
  sendContactMessage: (s, { origin }, { body, header }) => s.people.sendContactMessage(body, header[CHALLENGE_HEADER], origin),
};

/** The problem for an X-IAS-Challenge header that is absent, or not `<challenge>:<nonce>` at all. */
export function challengeHeaderProblem(missing: boolean): ProblemError {
  return missing
    ? new ProblemError('challenge-missing', 'This request needs a solved proof-of-work challenge.')
    : new ProblemError('challenge-malformed', `X-IAS-Challenge must be ${SOLUTION_FORMAT}.`);
}

const isChallenge = (field: FieldProblem) => field.in === 'header' && field.field === CHALLENGE_HEADER;

/**
 * An anonymous operation's input, checked by the contract's validator. An invalid X-IAS-Challenge header is a problem
 * of its own (`challenge-missing`, `challenge-malformed`), whatever else is wrong: it is what an anonymous write costs,
 * so it is checked first, on every channel.
 */
export function checkAnonymous(
  contract: Contract,
  operationId: string,
  input: OperationInput,
  options: { text?: boolean } = {},
): CheckedInput {
  try {
    return contract.check(operationId, input, options);
  } catch (error) {
    const challenge = error instanceof InvalidInputError ? error.fields.find(isChallenge) : undefined;
    if (challenge) throw challengeHeaderProblem(challenge.detail === 'is required');
    throw error;
  }
}
