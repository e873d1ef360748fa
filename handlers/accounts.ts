import { CHALLENGE_HEADER, personUseCases, type PersonCaller } from '../src/application/people.js';
import type { Handler } from '../src/http/handler-types.js';
import type { RequestInfo } from '../src/http/request-state.js';

const NO_STORE = { 'Cache-Control': 'no-store' };

const caller = (request: RequestInfo): PersonCaller => ({ origin: { ip: request.ip, userAgent: request.userAgent } });
/** The proof-of-work solution, as validated in the X-IAS-Challenge header. */
const solution = (request: RequestInfo) => {
  const header = request.headers[CHALLENGE_HEADER];
  return { [CHALLENGE_HEADER]: Array.isArray(header) ? header[0] : header };
};

export const getChallenge: Handler<'getChallenge'> = async ({ query, request, services }) => ({
  status: 200,
  body: await personUseCases.getChallenge(services, caller(request), { query }),
  headers: NO_STORE,
});

export const signUp: Handler<'signUp'> = async ({ body, request, services }) => ({
  status: 201,
  body: await personUseCases.signUp(services, caller(request), { body, header: solution(request) }),
});

export const logIn: Handler<'logIn'> = async ({ body, request, services }) => ({
  status: 200,
  body: await personUseCases.logIn(services, caller(request), { body, header: solution(request) }),
  headers: NO_STORE,
});

export const sendContactMessage: Handler<'sendContactMessage'> = async ({ body, request, services }) => ({
  status: 202,
  body: await personUseCases.sendContactMessage(services, caller(request), { body, header: solution(request) }),
});
