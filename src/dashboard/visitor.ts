import { parse as parseCookies, serialize } from 'cookie';
import type { NextFunction, Request, Response } from 'express';
import { userAgentOf, type Origin } from '../auth/authorize.js';
import type { ApiRequestState } from '../http/request-state.js';
import type { Services } from '../services/index.js';
import type { NamedKillSwitch } from '../services/kill-switch-names.js';
import { SESSION_TTL_MS, type Session } from '../services/sessions.js';
import type { Calls, DashboardChannel } from './channel.js';
import { must } from './present.js';

/** Who is looking at a page: the signed-in human (or nobody) and the CSRF token of their forms. */
export interface Visitor {
  session: Session | null;
  /** The raw session token from the cookie (needed to end or replace the session, and to read its flash). */
  token: string | undefined;
  csrf: string;
  /** What the CSRF token is bound to: the session's hash, or the pre-session cookie before login. */
  anchor: string;
  origin: Origin;
  /** The kill switch in force for the signed-in person's account, with who engaged it by name (every page's banner). */
  killSwitch: NamedKillSwitch | null;
  /** The API's interactive documentation (its own origin). */
  docsUrl: string;
}

export interface CookieNames {
  session: string;
  pre: string;
  secure: boolean;
}

/** Over https the cookies are Secure and take the `__Host-` prefix (no Domain, Path=/, Secure: never shared with a subdomain). */
export function cookieNames(dashboardUrl: string | undefined): CookieNames {
  const secure = Boolean(dashboardUrl?.startsWith('https:'));
  return secure ? { session: '__Host-ias_session', pre: '__Host-ias_pre', secure } : { session: 'ias_session', pre: 'ias_pre', secure };
}

function cookie(names: CookieNames, name: string, value: string, maxAgeSeconds: number): string {
  return serialize(name, value, { httpOnly: true, sameSite: 'strict', secure: names.secure, path: '/', maxAge: maxAgeSeconds });
}

export function sessionCookie(names: CookieNames, token: string): string {
  return cookie(names, names.session, token, SESSION_TTL_MS / 1000);
}

export function clearedSessionCookie(names: CookieNames): string {
  return cookie(names, names.session, '', 0);
}

/** The visitor `loadVisitor` found (undefined only for a request that failed before it ran). */
export function visitorOf(res: Response): Visitor {
  return (res.locals as { visitor: Visitor }).visitor;
}

/**
 * Loads the visitor of every request and the calls its pages make as that visitor (`callsOf`); a visitor without
 * session gets a pre-session cookie for the CSRF tokens of login and sign-up.
 */
export function loadVisitor(services: Services, channel: DashboardChannel, names: CookieNames, docsUrl: () => string) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const cookies = parseCookies(req.headers.cookie ?? '');
      const token = cookies[names.session];
      const session = await services.sessions.authenticate(token);
      let anchor = session?.idHash;
      if (!session) {
        // Only a pre-session this service issued is kept; any other value is replaced (never adopted).
        const pre = services.sessions.preSession(cookies[names.pre]);
        anchor = pre.value;
        if (pre.issued) res.append('Set-Cookie', cookie(names, names.pre, anchor, 24 * 60 * 60));
      }
      const visitor: Visitor = {
        session,
        token: session ? token : undefined,
        csrf: services.sessions.csrfToken(anchor!),
        anchor: anchor!,
        origin: { ip: req.ip ?? req.socket.remoteAddress ?? 'unknown', userAgent: userAgentOf(req.headers['user-agent']) },
        killSwitch: null,
        docsUrl: docsUrl(),
      };
      const calls = channel.callsFor(session?.accountId, visitor.origin, visitor.token, (res.locals as { api: ApiRequestState }).api.log);
      (res.locals as { visitor: Visitor; calls: Calls }).visitor = visitor;
      (res.locals as { calls: Calls }).calls = calls;
      if (session) visitor.killSwitch = must(await calls.action('namedKillSwitch'));
      next();
    } catch (error) {
      next(error);
    }
  };
}
