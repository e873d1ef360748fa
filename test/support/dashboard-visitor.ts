import { solveChallenge } from '../../scripts/solve-challenge.js';

/** A cookie-keeping visitor of the dashboard, speaking plain HTTP (no browser). */
export class Visitor {
  cookies = new Map<string, string>();
  lastSetCookie: string[] = [];

  /** @param userAgent the User-Agent every request sends (else fetch's own) */
  constructor(
    readonly base: string,
    private readonly userAgent?: string,
  ) {}

  async fetch(path: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    if (this.userAgent) headers.set('user-agent', this.userAgent);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(`${this.base}${path}`, { ...init, headers, redirect: 'manual' });
    this.lastSetCookie = response.headers.getSetCookie();
    for (const line of this.lastSetCookie) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      if (value) this.cookies.set(name!, value);
      else this.cookies.delete(name!);
    }
    return response;
  }

  async csrf(path: string): Promise<string> {
    const page = await (await this.fetch(path)).text();
    return /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  }

  post(path: string, form: Record<string, string>) {
    return this.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  }

  /** Logs in through the login form (`csrfFrom`: a signed-in visitor takes the token of a page of their session). */
  async logIn(email: string, password: string, csrfFrom = '/login') {
    const csrf = await this.csrf(csrfFrom);
    const issued = (await (await this.fetch('/challenge?purpose=login')).json()) as { challenge: string; difficulty: number };
    return this.post('/login', { email, password, _csrf: csrf, challenge_solution: solveChallenge(issued.challenge, issued.difficulty) });
  }

  /** A page's HTML. */
  async page(path: string): Promise<{ status: number; html: string }> {
    const response = await this.fetch(path);
    return { status: response.status, html: await response.text() };
  }

  /** Posts a form of a page of the session with that page's CSRF token. */
  async submit(path: string, form: Record<string, string | string[]>, csrfFrom = '/overview') {
    const body = new URLSearchParams({ _csrf: await this.csrf(csrfFrom) });
    for (const [name, value] of Object.entries(form)) for (const one of ([] as string[]).concat(value)) body.append(name, one);
    return this.fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  }
}
