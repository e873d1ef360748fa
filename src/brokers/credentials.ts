// A connected account's secret key at rest: AES-256-GCM under the operator's key (BROKER_CREDENTIALS_KEY), bound to
// the account it belongs to. What is stored is `base64(version ‖ iv ‖ ciphertext ‖ tag)`; nothing of it reads back
// without the key, and a sealed secret copied to another account's row does not open there.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** Why a sealed secret did not open: another key, another account, a changed byte, or not a sealed secret at all. */
export class SealedSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedSecretError';
  }
}

/** The additional authenticated data: the format's version and the account the secret belongs to. */
const boundTo = (version: number, accountId: string) => Buffer.from(`ias broker secret v${version} for account ${accountId}`, 'utf8');

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new RangeError(`a credentials key is ${KEY_BYTES} bytes, not ${key.length}`);
}

/** Encrypts `secret` for `accountId` under `key` (32 bytes), with a fresh random IV each time. */
export function seal(key: Buffer, accountId: string, secret: string): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(boundTo(VERSION, accountId));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, ciphertext, cipher.getAuthTag()]).toString('base64');
}

/** The secret `seal` sealed for `accountId` under `key`; a SealedSecretError when it does not open (it never says more). */
export function open(key: Buffer, accountId: string, sealed: string): string {
  checkKey(key);
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < 1 + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION) {
    throw new SealedSecretError('the stored broker secret is not in a format this version knows');
  }
  const iv = bytes.subarray(1, 1 + IV_BYTES);
  const ciphertext = bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(boundTo(VERSION, accountId));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedSecretError('the stored broker secret does not open with this key for this account (another key, or altered)');
  }
}
