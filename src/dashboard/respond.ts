import type { Response } from 'express';

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
