import { OAuthError, ProblemError } from '../problems.js';

export interface DeclaredBody {
  /** Media types the operation declares for its request body; empty when it takes none. */
  mediaTypes: string[];
  isTokenEndpoint: boolean;
}

/** The media type of a Content-Type header, lower case, and its charset parameter. */
export function mediaTypeOf(header: string | undefined): { type: string; charset: string | undefined } {
  const [type = '', ...params] = (header ?? '').split(';');
  const charset = params
    .map((p) => p.trim().toLowerCase())
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  return { type: type.trim().toLowerCase(), charset };
}

function parseForm(text: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in form) throw new OAuthError('invalid_request', `The parameter "${name}" is repeated.`);
    form[name] = value;
  }
  return form;
}

/**
 * Turns the raw body into the value the operation declares, or a problem: a body the operation does not take or a
 * media type it does not declare is 415, malformed JSON is 400. The token endpoint answers in RFC 6749 terms.
 */
export function parseBody(raw: Buffer | undefined, contentType: string | undefined, declared: DeclaredBody): unknown {
  if (!raw || raw.length === 0) return undefined;
  const { type, charset } = mediaTypeOf(contentType);
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ProblemError('unsupported-media-type', `Only UTF-8 request bodies are accepted, not charset "${charset}".`);
  }
  if (declared.mediaTypes.length === 0) {
    throw new ProblemError('unsupported-media-type', 'This operation takes no request body; send none.');
  }
  if (!declared.mediaTypes.includes(type)) {
    const expected = declared.mediaTypes.join(' or ');
    if (declared.isTokenEndpoint) throw new OAuthError('invalid_request', `The request body must be ${expected}.`);
    throw new ProblemError(
      'unsupported-media-type',
      `Send the request body as ${expected}${type ? `, not ${type}` : ' with a Content-Type header'}.`,
    );
  }
  const text = raw.toString('utf8');
  if (type === 'application/x-www-form-urlencoded') return parseForm(text);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProblemError('malformed-request', `The request body is not valid JSON: ${(error as Error).message}.`);
  }
}

export const MALFORMED_PATH = 'The URL path is not valid percent-encoded UTF-8.';

/** The problem for a body that could not be read (body-parser's error `type`): too large, encoded, or broken off. */
export function bodyReadProblem(error: unknown, limitBytes: number): ProblemError {
  const type = (error as { type?: string } | undefined)?.type;
  if (type === 'entity.too.large') return new ProblemError('payload-too-large', `The request body exceeds ${limitBytes} bytes.`);
  if (type === 'encoding.unsupported')
    return new ProblemError('unsupported-media-type', 'Send the request body without a Content-Encoding.');
  return new ProblemError('malformed-request', 'The request body could not be read.');
}
