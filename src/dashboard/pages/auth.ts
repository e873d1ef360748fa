import { Router, type Request, type Response } from 'express';
import { CHALLENGE_HEADER } from '../../application/people.js';
import { MIN_PASSWORD_LENGTH } from '../../auth/passwords.js';
import { callsOf } from '../channel.js';
import type { DashboardContext } from '../context.js';
import { html, type Html } from '../html.js';
import { csrfField, page, type PageOptions } from '../layout.js';
import { seeOther, sendPage } from '../respond.js';
import { clearedSessionCookie, sessionCookie, visitorOf, type Visitor } from '../visitor.js';

type Form = Record<string, string | undefined>;

const LABELS = { '/name': 'Your name', '/email': 'Email', '/password': 'Password' };

/** The proof-of-work solution the page's script put in the form, as the header the contract declares for it. */
export function solutionHeader(form: unknown): Record<string, string> {
  const solution = (form as { challenge_solution?: unknown } | undefined)?.challenge_solution;
  return typeof solution === 'string' && solution !== '' ? { [CHALLENGE_HEADER]: solution } : {};
}

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
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="72"
  aria-describedby="password-help">
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

export function authRoutes({ sessions, cookies }: DashboardContext): Router {
  const router = Router();
  const show = (res: Response, status: number, options: Omit<PageOptions, 'visitor'>, headers?: Record<string, string>) =>
    sendPage(res, status, page({ ...options, visitor: visitorOf(res) }), headers);
  const field = (req: Request, name: string) => {
    const value = (req.body as Form)[name];
    return typeof value === 'string' ? value : undefined;
  };

  router.get('/signup', (_req, res) => show(res, 200, { title: 'Sign up', body: signupForm(visitorOf(res), {}) }));
  router.post('/signup', async (req, res) => {
    const body = { email: field(req, 'email') ?? '', password: field(req, 'password') ?? '', name: field(req, 'name') ?? '' };
    const created = await callsOf(res).anonymous('signUp', { body, header: solutionHeader(req.body) }, LABELS);
    if (!created.ok)
      return show(res, created.status, { title: 'Sign up', error: created.error, body: signupForm(visitorOf(res), body) }, created.headers);
    seeOther(res, '/login?created=1');
  });

  router.get('/login', (req, res) => {
    if (visitorOf(res).session) return seeOther(res, '/overview');
    const notice = req.query.created ? 'Your account is ready. Log in to continue.' : req.query.ended ? 'You are logged out.' : null;
    show(res, 200, { title: 'Log in', notice, body: loginForm(visitorOf(res), {}) });
  });
  router.post('/login', async (req, res) => {
    const body = { email: field(req, 'email') ?? '', password: field(req, 'password') ?? '' };
    const session = await callsOf(res).anonymous('logIn', { body, header: solutionHeader(req.body) }, LABELS);
    if (!session.ok)
      return show(
        res,
        session.status,
        { title: 'Log in', error: session.error, body: loginForm(visitorOf(res), { email: body.email }) },
        session.headers,
      );
    res.append('Set-Cookie', sessionCookie(cookies, session.value.session_token));
    seeOther(res, '/overview');
  });

  router.post('/logout', async (_req, res) => {
    const { token } = visitorOf(res);
    if (token) await sessions.end(token);
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
