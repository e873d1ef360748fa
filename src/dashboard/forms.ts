// The dashboard's forms (application/x-www-form-urlencoded), read as body-parser's `urlencoded({ extended: false })`
// would — UTF-8, at most 100 fields, repeated names as lists — but within BODY_LIMIT_BYTES and never beyond it
// (src/http/body-limit.ts): body-parser drained a refused form to its end before answering.
import { parse } from 'node:querystring';
import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from '../problems.js';
import { readBodyLimited } from '../http/body-limit.js';

const FIELDS = 100;

export function readForms(limit: number) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const [type, ...parameters] = (req.headers['content-type'] ?? '').split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'application/x-www-form-urlencoded') return next();
    try {
      const charset = parameters.find((p) => p.startsWith('charset='))?.slice('charset='.length);
      if (charset && charset !== 'utf-8') throw new ProblemError('unsupported-media-type', 'Forms are read as UTF-8.');
      const text = ((await readBodyLimited(req, res, limit)) ?? Buffer.alloc(0)).toString('utf8');
      if (text.split('&').length > FIELDS) throw new ProblemError('payload-too-large', `A form has at most ${FIELDS} fields.`);
      req.body = parse(text);
      next();
    } catch (error) {
      next(error);
    }
  };
}
