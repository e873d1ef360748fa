import type { RequestInfo } from '../src/http/request-state.js';
import type { Handler } from '../src/http/handler-types.js';

const NO_STORE = { 'Cache-Control': 'no-store' };

const origin = (request: RequestInfo) => ({ ip: request.ip, userAgent: request.userAgent });
const solution = (request: RequestInfo) => {
  const header = request.headers['x-ias-challenge'];
  return Array.isArray(header) ? header[0] : header;
};

export const getChallenge: Handler<'getChallenge'> = async ({ query, request, services }) => ({
  status: 200,
  body: await services.challenges.issue(origin(request), query.purpose),
  headers: NO_STORE,
});

export const signUp: Handler<'signUp'> = async ({ body, request, services }) => ({
  status: 201,
  body: await services.people.signUp(body, solution(request), origin(request)),
});

export const logIn: Handler<'logIn'> = async ({ body, request, services }) => ({
  status: 200,
  body: await services.people.logIn(body, solution(request), origin(request)),
  headers: NO_STORE,
});

export const sendContactMessage: Handler<'sendContactMessage'> = async ({ body, request, services }) => ({
  status: 202,
  body: await services.people.sendContactMessage(body, solution(request), origin(request)),
});
