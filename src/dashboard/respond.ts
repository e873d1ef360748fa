import type { Response } from 'express';
import { classifyError, retryAfterSeconds } from '../application/failures.js';
import { statusOf } from '../application/problems.js';
import type { ProblemError } from '../problems.js';
import { InvalidInputError } from '../services/errors.js';
import type { PageOptions } from './layout.js';

/** What a failed form shows: the problem's detail and the fields it names, and the HTTP status of that problem. */
export function formError(error: unknown): { status: number; error: NonNullable<PageOptions['error']>; headers: Record<string, string> } {
  const { problem } = classifyError(error);
  const fields =
    problem instanceof InvalidInputError
      ? problem.fields.map((f) => ({ field: f.field.replace(/\//g, ' › '), detail: f.detail }))
      : undefined;
  return { status: statusOf(problem.slug), error: { detail: problem.detail ?? problem.message, fields }, headers: pageHeaders(problem) };
}

/** A page's own headers for a problem: when the visitor may try again (a locked login, a busy service). */
export function pageHeaders(problem: ProblemError): Record<string, string> {
  const retryAfter = retryAfterSeconds(problem);
  return retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) };
}

export function sendPage(res: Response, status: number, body: string, headers: Record<string, string> = {}): void {
  res
    .status(status)
    .set({ 'Content-Type': 'text/html; charset=utf-8', ...headers })
    .send(body);
}

/** After a successful POST: the browser GETs the next page, so a reload never repeats the action. */
export function seeOther(res: Response, location: string): void {
  res.redirect(303, location);
}
