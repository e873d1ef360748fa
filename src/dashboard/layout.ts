import { html, type Html } from './html.js';
import type { Visitor } from './visitor.js';

const SECTIONS = [
  { path: '/overview', label: 'Overview' },
  { path: '/developer', label: 'Developer' },
  { path: '/safety', label: 'Safety' },
  { path: '/policy', label: 'Policy' },
] as const;

export interface PageOptions {
  title: string;
  visitor: Visitor;
  /** The nav entry of this page. */
  section?: (typeof SECTIONS)[number]['path'];
  notice?: string | null;
  /** What went wrong with the last form (a problem's detail, and the fields it names). */
  error?: { detail: string; fields?: { field: string; detail: string }[] } | null;
  body: Html;
}

/** Hidden CSRF field of every form: tied to the visitor's session (or pre-session before login). */
export function csrfField(visitor: Visitor): Html {
  return html`<input type="hidden" name="_csrf" value="${visitor.csrf}">`;
}

function navigation(visitor: Visitor, section: string | undefined): Html {
  if (!visitor.session) return html``;
  return html`<nav aria-label="Dashboard"><ul>
${SECTIONS.map((s) => html`<li><a href="${s.path}"${s.path === section ? html` aria-current="page"` : html``}>${s.label}</a></li>`)}
</ul>
<form method="post" action="/logout" class="logout">${csrfField(visitor)}<span>${visitor.session.email}</span> <button type="submit">Log out</button></form></nav>`;
}

export function page(options: PageOptions): string {
  const { title, visitor, section, notice, error, body } = options;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Investment Automation dashboard</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/assets/dashboard.css"><script src="/assets/dashboard.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><p class="brand">Investment Automation</p>${navigation(visitor, section)}</header>
<main id="main"><h1>${title}</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${error ? html`<div class="error" role="alert"><p>${error.detail}</p>${error.fields?.length ? html`<ul>${error.fields.map((f) => html`<li><strong>${f.field || 'request'}</strong> ${f.detail}</li>`)}</ul>` : ''}</div>` : ''}
${body}
</main></body></html>`.value;
}
