import { COMMON_PASSWORDS } from './common-passwords.js';

export const MIN_PASSWORD_LENGTH = 12;
/** bcrypt reads at most 72 bytes; a longer password would be silently cut, so it is refused instead. */
export const MAX_PASSWORD_BYTES = 72;

const common = new Set(COMMON_PASSWORDS);

/**
 * Emails compare as people mean them: Unicode NFKC (full-width and compatibility forms fold), trimmed, lower-case.
 * The local part is not otherwise rewritten (dots and plus tags are meaningful to many providers).
 */
export function normalizeEmail(raw: string): string {
  return raw.normalize('NFKC').trim().toLowerCase();
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, email: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return `must be at most ${MAX_PASSWORD_BYTES} bytes in UTF-8`;
  const folded = password.normalize('NFKC').toLowerCase();
  if (common.has(folded)) return 'is one of the most common passwords; choose another';
  if (new Set(folded).size <= 2) return 'repeats one or two characters; choose another';
  const local = normalizeEmail(email).split('@')[0] ?? '';
  if (local.length >= 4 && folded.includes(local)) return 'contains the email address; choose another';
  return null;
}
