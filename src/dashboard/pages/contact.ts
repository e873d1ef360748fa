import { Router, type Request, type Response } from 'express';
import type { DashboardContext } from '../context.js';
import { html, type Html } from '../html.js';
import { csrfField, page, type PageOptions } from '../layout.js';
import { callsOf } from '../channel.js';
import { seeOther, sendPage } from '../respond.js';
import { visitorOf, type Visitor } from '../visitor.js';
import { solutionHeader } from './auth.js';

type Form = { name?: string; email?: string; message?: string };

const LABELS = { '/name': 'Your name', '/email': 'Your email', '/message': 'Message' };

function contactForm(visitor: Visitor, form: Form): Html {
  return html`<p>Questions about your account, the API or an order? Write to the team that runs this service; we answer by email.</p>
<form method="post" action="/contact" data-challenge="contact" class="stack">${csrfField(visitor)}<input type="hidden" name="challenge_solution" value="">
<label for="contact-name">Your name</label>
<input id="contact-name" name="name" autocomplete="name" required maxlength="200" value="${form.name ?? visitor.session?.name ?? ''}">
<label for="contact-email">Your email</label>
<input id="contact-email" name="email" type="email" autocomplete="email" required maxlength="254" value="${form.email ?? visitor.session?.email ?? ''}">
<label for="contact-message">Message</label><textarea id="contact-message" name="message" required maxlength="5000" rows="6">${form.message ?? ''}</textarea>
<p class="pow-status" role="status" aria-live="polite"></p>
<noscript><p class="error">This form needs JavaScript: it solves a small proof-of-work puzzle that keeps bots out.</p></noscript>
<button type="submit">Send message</button>
</form>`;
}

/** The public Contact page: a message to the operators (POST /v1/contact's use case, behind the same proof of work). */
export function contactRoutes(_context: DashboardContext): Router {
  const router = Router();
  const show = (res: Response, status: number, options: Omit<PageOptions, 'visitor' | 'section'>, headers?: Record<string, string>) =>
    sendPage(res, status, page({ ...options, visitor: visitorOf(res), section: '/contact' }), headers);

  router.get('/contact', (req, res) => {
    const sent = typeof req.query.sent === 'string' && /^msg_[\w-]{1,64}$/.test(req.query.sent) ? req.query.sent : null;
    if (sent) {
      return show(res, 200, {
        title: 'Message sent',
        notice: 'Thank you: your message has reached the team.',
        body: html`<p>Its reference is <code>${sent}</code>; quote it if you write again. We answer at the email address you gave.</p>
<p><a href="/contact">Send another message</a></p>`,
      });
    }
    show(res, 200, { title: 'Contact', body: contactForm(visitorOf(res), {}) });
  });
  router.post('/contact', async (req: Request, res: Response) => {
    const form = req.body as Record<string, unknown>;
    const text = (name: string) => (typeof form[name] === 'string' ? form[name] : '');
    const body = { name: text('name').trim(), email: text('email').trim(), message: text('message').trim() };
    const sent = await callsOf(res).anonymous('sendContactMessage', { body, header: solutionHeader(form) }, LABELS);
    if (!sent.ok)
      return show(res, sent.status, { title: 'Contact', error: sent.error, body: contactForm(visitorOf(res), body) }, sent.headers);
    seeOther(res, `/contact?sent=${encodeURIComponent(sent.value.id)}`);
  });
  return router;
}
