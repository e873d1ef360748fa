import { html, type Html } from './html.js';
import type { PageError } from './present.js';
import type { Visitor } from './visitor.js';

const SECTIONS = [
  { path: '/overview', label: 'Overview' },
  { path: '/orders', label: 'Orders' },
  { path: '/ideas', label: 'Ideas' },
  { path: '/policy', label: 'Policy' },
  { path: '/safety', label: 'Safety' },
  { path: '/broker', label: 'Broker' },
  { path: '/developer', label: 'Developer' },
] as const;

export interface PageOptions {
  title: string;
  visitor: Visitor;
  /** The nav entry of this page. */
  section?: (typeof SECTIONS)[number]['path'] | '/contact';
  notice?: string | null;
  /** What went wrong with the last form (a problem's detail, and the fields it names). */
  error?: PageError | null;
  body: Html;
}

/** Hidden CSRF field of every form: tied to the visitor's session (or pre-session before login). */
export function csrfField(visitor: Visitor): Html {
  return html`<input type="hidden" name="_csrf" value="${visitor.csrf}">`;
}

function navigation(visitor: Visitor, section: string | undefined): Html {
  if (!visitor.session) {
    return html`<nav aria-label="Dashboard"><ul>
<li><a href="/login">Log in</a></li><li><a href="/signup">Sign up</a></li>
<li><a href="/contact"${section === '/contact' ? html` aria-current="page"` : html``}>Contact</a></li>
<li><a href="${visitor.docsUrl}">API docs</a></li></ul></nav>`;
  }
  return html`<nav aria-label="Dashboard"><ul>
${SECTIONS.map((s) => html`<li><a href="${s.path}"${s.path === section ? html` aria-current="page"` : html``}>${s.label}</a></li>`)}
</ul>
<form method="post" action="/logout" class="logout">${csrfField(visitor)}<span>${visitor.session.email}</span>
<button type="submit">Log out</button></form></nav>`;
}

/** On every page while approvals are stopped: since when, by whom, why, and where to release it. */
function killSwitchBanner(visitor: Visitor): Html | '' {
  const state = visitor.killSwitch;
  if (!state?.engaged) return '';
  const since = state.engaged_at
    ? html` since <time datetime="${state.engaged_at}">${state.engaged_at.slice(0, 16).replace('T', ' ')} UTC</time>`
    : '';
  const isGlobal = state.level === 'global';
  const reason = state.reason ? html`: “${state.reason}”` : '';
  const release = isGlobal ? 'Operators release it.' : html`<a href="/safety">Release it on the Safety page</a>.`;
  return html`<div class="kill-banner" role="status"><p><strong>The ${isGlobal ? 'global ' : ''}kill switch is engaged</strong>${since}
by ${state.engaged_by_name ?? 'unknown'}${reason}. No order can be approved. ${release}</p></div>`;
}

/** What went wrong with the last form: the problem's detail and each field it names. */
function errorAlert(error: PageError): Html {
  const fields = error.fields?.map((f) => html`<li><strong>${f.field || 'request'}</strong> ${f.detail}</li>`);
  return html`<div class="error" role="alert"><p>${error.detail}</p>${fields?.length ? html`<ul>${fields}</ul>` : ''}</div>`;
}

export function page(options: PageOptions): string {
  const { title, visitor, section, notice, error, body } = options;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Investment Automation dashboard</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/assets/dashboard.css"><script src="/assets/dashboard.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><p class="brand">Investment Automation</p>${navigation(visitor, section)}${killSwitchBanner(visitor)}</header>
<main id="main"><h1>${title}</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${error ? errorAlert(error) : ''}
${body}
</main>
<footer><ul><li><a href="${visitor.docsUrl}">API documentation</a></li><li><a href="/contact">Contact us</a></li></ul></footer></body></html>`
    .value;
}
