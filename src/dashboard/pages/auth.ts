import { Router, type Request, type Response } from 'express';
import { MIN_PASSWORD_LENGTH } from '../../auth/passwords.js';
import type { DashboardContext } from '../context.js';
import { html, type Html } from '../html.js';
import { csrfField, page, type PageOptions } from '../layout.js';
import { formError, seeOther, sendPage } from '../respond.js';
import { clearedSessionCookie, sessionCookie, visitorOf, type Visitor } from '../visitor.js';

type Form = Record<string, string | undefined>;

/** The proof-of-work field every anonymous form carries; dashboard.js fills it with a solved challenge before submitting. */
function powFields(visitor: Visitor): Html {
  return html`${csrfField(visitor)}<input type="hidden" name="challenge_solution" value="">
<p class="pow-status" role="status" aria-live="polite"></p>
<noscript><p class="error">This form needs JavaScript: it solves a small proof-of-work puzzle that keeps bots out.</p></noscript>`;
}

function signupForm(visitor: Visitor, form: Form): Html {
  return html`<form method="post" action="/signup" data-challenge="signup" class="stack">
${powFields(visitor)}
<label for="name">Your name</label><input id="name" name="name" autocomplete="name" required maxlength="200" value="${form.name ?? ''}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${form.email ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="72" aria-describedby="password-help">
<p id="password-help" class="help">At least ${MIN_PASSWORD_LENGTH} characters; common passwords are refused.</p>
<button type="submit">Sign up</button>
</form>
<p>Already have an account? <a href="/login">Log in</a></p>`;
}

function loginForm(visitor: Visitor, form: Form): Html {
  return html`<form method="post" action="/login" data-challenge="login" class="stack">
${powFields(visitor)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${form.email ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="72">
<button type="submit">Log in</button>
</form>
<p>No account yet? <a href="/signup">Sign up</a></p>`;
}

export function authRoutes({ services, contract, cookies }: DashboardContext): Router {
  const router = Router();
  const show = (res: Response, status: number, options: Omit<PageOptions, 'visitor'>, headers?: Record<string, string>) =>
    sendPage(res, status, page({ ...options, visitor: visitorOf(res) }), headers);
  const field = (req: Request, name: string) => {
    const value = (req.body as Form)[name];
    return typeof value === 'string' ? value : undefined;
  };

  router.get('/signup', (_req, res) => show(res, 200, { title: 'Sign up', body: signupForm(visitorOf(res), {}) }));
  router.post('/signup', async (req, res, next) => {
    const visitor = visitorOf(res);
    const body = { email: field(req, 'email') ?? '', password: field(req, 'password') ?? '', name: field(req, 'name') ?? '' };
    try {
      contract.validate('signUp', { body });
      await services.people.signUp(body, field(req, 'challenge_solution'), visitor.origin);
      seeOther(res, '/login?created=1');
    } catch (error) {
      const failed = formError(error);
      if (failed.status >= 500) return next(error);
      show(res, failed.status, { title: 'Sign up', error: failed.error, body: signupForm(visitor, body) }, failed.headers);
    }
  });

  router.get('/login', (req, res) => {
    if (visitorOf(res).session) return seeOther(res, '/overview');
    const notice = req.query.created ? 'Your account is ready. Log in to continue.' : req.query.ended ? 'You are logged out.' : null;
    show(res, 200, { title: 'Log in', notice, body: loginForm(visitorOf(res), {}) });
  });
  router.post('/login', async (req, res, next) => {
    const visitor = visitorOf(res);
    const body = { email: field(req, 'email') ?? '', password: field(req, 'password') ?? '' };
    try {
      contract.validate('logIn', { body });
      const session = await services.people.logIn(body, field(req, 'challenge_solution'), visitor.origin, visitor.token);
      res.append('Set-Cookie', sessionCookie(cookies, session.session_token));
      seeOther(res, '/overview');
    } catch (error) {
      const failed = formError(error);
      if (failed.status >= 500) return next(error);
      show(res, failed.status, { title: 'Log in', error: failed.error, body: loginForm(visitor, { email: body.email }) }, failed.headers);
    }
  });

  router.post('/logout', async (_req, res) => {
    const { token } = visitorOf(res);
    if (token) await services.sessions.end(token);
    res.append('Set-Cookie', clearedSessionCookie(cookies));
    seeOther(res, '/login?ended=1');
  });
  return router;
}

/** Guards a page behind a login: without a session the visitor is sent to the login page. */
export function requireSession(_req: Request, res: Response, next: () => void): void {
  if (visitorOf(res).session) next();
  else seeOther(res, '/login');
}
