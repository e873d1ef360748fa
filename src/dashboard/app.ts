import { readFileSync } from 'node:fs';
import express, { type ErrorRequestHandler, type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { closeUnreadBodies } from '../http/body-limit.js';
import { requestLog } from '../http/request-log.js';
import type { ApiRequestState } from '../http/request-state.js';
import { classifyError } from '../application/failures.js';
import type { Pipeline } from '../application/pipeline.js';
import { statusOf } from '../application/problems.js';
import { ProblemError } from '../problems.js';
import type { Services } from '../services/index.js';
import { callsOf, DashboardChannel } from './channel.js';
import type { DashboardContext } from './context.js';
import { html } from './html.js';
import { page } from './layout.js';
import { authRoutes } from './pages/auth.js';
import { brokerRoutes } from './pages/broker.js';
import { developerRoutes } from './pages/developer.js';
import { overviewRoutes } from './pages/overview.js';
import { orderRoutes } from './pages/orders.js';
import { ideaRoutes } from './pages/ideas.js';
import { contactRoutes } from './pages/contact.js';
import { policyRoutes } from './pages/policy.js';
import { safetyRoutes } from './pages/safety.js';
import { webhookRoutes } from './pages/webhooks.js';
import { must, pageHeaders, PageFailure } from './present.js';
import { sendPage } from './respond.js';
import { readForms } from './forms.js';
import { cookieNames, loadVisitor, visitorOf, type Visitor } from './visitor.js';

/** The refusals of a form itself (forms.ts): the visitor's to fix, shown as such. */
const FORM_REFUSALS = ['payload-too-large', 'unsupported-media-type', 'malformed-request'];

/** No inline script or style, nothing from elsewhere, no framing, forms post only here. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

/** The style sheet, by topic, served as one file in this order (later rules win where two match alike). */
const STYLES = ['1-page.css', '2-content.css', '3-overview.css', '4-small-screens.css'];

function asset(name: string): string {
  for (const base of ['./assets/', '../../../src/dashboard/assets/']) {
    try {
      return readFileSync(new URL(base + name, import.meta.url), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error(`dashboard asset ${name} is missing`);
}

export interface DashboardDependencies {
  config: Config;
  services: Services;
  /** The one pipeline of the service's channels (src/server.ts makes it). */
  pipeline: Pipeline;
  logger: Logger;
  /** The API's address as clients reach it (BASE_URL, or the port the API listens on when PORT=0 picked one). */
  apiUrl?: () => string;
}

/** Who an error page is for when the request failed before its visitor was known. */
const anonymous: Visitor = {
  session: null,
  token: undefined,
  csrf: '',
  anchor: '',
  origin: { ip: '', userAgent: null },
  killSwitch: null,
  docsUrl: '/',
};

/**
 * The human-facing dashboard, on its own port (its own origin): server-rendered pages whose every call runs through
 * the application's pipeline as the `dashboard` channel (channel.ts), with the same validator, authorization, use
 * cases and problems as the API. Sessions are cookies; bearer tokens are refused.
 */
export function createDashboardApp({ config, services, pipeline, logger, apiUrl = () => config.baseUrl }: DashboardDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', config.trustProxy);
  const channel = new DashboardChannel(pipeline, services);
  const context: DashboardContext = { sessions: services.sessions, cookies: cookieNames(config.dashboardUrl) };
  const assets = {
    'dashboard.css': ['text/css', STYLES.map((file) => asset(`styles/${file}`)).join('')],
    'dashboard.js': ['text/javascript', asset('dashboard.js')],
  } as const;

  // The API's request logger (never headers, cookies, bodies or queries), its lines marked as the dashboard's.
  app.use(requestLog(logger.child({ app: 'dashboard' }), () => 'dashboard'));
  app.use((req, res, next) => {
    res.set({
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    });
    if (req.headers.authorization) {
      sendPage(
        res,
        401,
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not accepted</title></head>' +
          '<body><main><h1>Bearer tokens are not accepted here</h1>' +
          '<p>The dashboard is for people: log in with your email and password. API tokens are for the API.</p></main></body></html>',
      );
      return;
    }
    next();
  });
  // A path that is not valid percent-encoded UTF-8 names no page; left to the router, decoding a parameter throws a
  // URIError that would surface as a 500. Refused here, before any route, as the visitor's mistake.
  app.use((req, res, next) => {
    try {
      decodeURIComponent(req.path);
    } catch {
      sendPage(
        res,
        400,
        page({
          title: 'Bad address',
          visitor: anonymous,
          error: { detail: 'The address is not valid: it has a malformed percent-encoded character.' },
          body: html`<p><a href="/">Back to the dashboard</a></p>`,
        }),
      );
      return;
    }
    next();
  });
  app.get('/assets/:file', (req, res, next) => {
    const found = assets[req.params.file as keyof typeof assets];
    if (!found) return next();
    res.set({ 'Content-Type': `${found[0]}; charset=utf-8`, 'Cache-Control': 'no-cache' }).send(found[1]);
  });
  app.use(closeUnreadBodies(config.bodyLimitBytes));
  app.use(readForms(config.bodyLimitBytes));
  app.use(loadVisitor(services, channel, context.cookies, () => `${apiUrl()}/docs`));

  // The page's solver fetches its challenge here (same origin: the CSP allows no other).
  app.get('/challenge', async (req, res) => {
    const { purpose } = req.query;
    res.json(must(await callsOf(res).anonymous('getChallenge', { query: typeof purpose === 'string' ? { purpose } : {} })));
  });

  // Every POST carries the CSRF token of the visitor's session (or pre-session).
  app.post('*path', (req: Request, res: Response, next: NextFunction) => {
    const visitor = visitorOf(res);
    if (services.sessions.checkCsrf(visitor.anchor, (req.body as Record<string, unknown> | undefined)?._csrf)) return next();
    sendPage(
      res,
      403,
      page({
        title: 'Form expired',
        visitor,
        error: { detail: 'This form is out of date or did not come from this dashboard. Go back, reload the page and try again.' },
        body: html`<p><a href="/">Back to the dashboard</a></p>`,
      }),
    );
  });

  app.get('/', (_req, res) => res.redirect(303, visitorOf(res).session ? '/overview' : '/login'));
  app.use(authRoutes(context));
  app.use(overviewRoutes(context));
  app.use(orderRoutes(context));
  app.use(ideaRoutes(context));
  app.use(contactRoutes(context));
  app.use(developerRoutes(context));
  app.use(webhookRoutes(context));
  app.use(safetyRoutes(context));
  app.use(brokerRoutes(context));
  app.use(policyRoutes(context));

  app.use((_req, res) =>
    sendPage(
      res,
      404,
      page({
        title: 'Not found',
        visitor: visitorOf(res),
        body: html`<p>There is no such page. <a href="/">Back to the dashboard</a></p>`,
      }),
    ),
  );
  const failed: ErrorRequestHandler = (error, _req, res, _next) => {
    // A form too large or unreadable (forms.ts) is the visitor's, not ours.
    const parserStatus = error instanceof ProblemError && FORM_REFUSALS.includes(error.slug) ? statusOf(error.slug) : undefined;
    if (parserStatus && parserStatus >= 400 && parserStatus < 500) {
      sendPage(
        res,
        parserStatus,
        page({
          title: 'Form not accepted',
          visitor: visitorOf(res) ?? anonymous,
          error: { detail: 'The form could not be read (too large or malformed).' },
          body: html`<p><a href="/">Back to the dashboard</a></p>`,
        }),
      );
      return;
    }
    // A call's failure was classified and logged by the pipeline; anything else (a session lookup) is classified here.
    let refused: { status: number; detail: string; headers: Record<string, string> };
    if (error instanceof PageFailure) refused = { ...error.refused, detail: error.refused.error.detail };
    else {
      const { problem, log } = classifyError(error);
      if (log !== 'none') (res.locals as { api: ApiRequestState }).api.log[log]({ err: error }, 'dashboard request failed');
      refused = { status: statusOf(problem.slug), detail: problem.detail ?? problem.message, headers: pageHeaders(problem) };
    }
    const body = page({
      title: 'Something went wrong',
      visitor: visitorOf(res) ?? anonymous,
      error: { detail: refused.detail },
      body: html`<p><a href="/">Back to the dashboard</a></p>`,
    });
    sendPage(res, refused.status, body, refused.headers);
  };
  app.use(failed);
  return app;
}
