import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { open, seal, SealedSecretError } from '../../src/brokers/credentials.js';
import { DERIVED_BROKER_KEY_LABEL, loadConfig } from '../../src/config.js';

const KEY = Buffer.alloc(32, 7);
const SECRET = 'alpaca-secret-0123456789abcdefghijklmnopqrstuv';

/** `sealed` with one byte of its decoded form changed at `index` (counted from the end when negative). */
function flipped(sealed: string, index: number): string {
  const bytes = Buffer.from(sealed, 'base64');
  const at = index < 0 ? bytes.length + index : index;
  bytes[at] = bytes[at]! ^ 0x01;
  return bytes.toString('base64');
}

describe('broker credentials at rest (AES-256-GCM, bound to the account)', () => {
  it('opens what it sealed, for the same key and account', () => {
    const sealed = seal(KEY, 'acc_1', SECRET);
    expect(open(KEY, 'acc_1', sealed)).to.equal(SECRET);
  });

  it('keeps nothing of the secret readable: a version byte, a 12-byte IV, the ciphertext and a 16-byte tag', () => {
    const sealed = seal(KEY, 'acc_1', SECRET);
    const bytes = Buffer.from(sealed, 'base64');
    expect(bytes[0]).to.equal(1);
    expect(bytes.length).to.equal(1 + 12 + Buffer.byteLength(SECRET) + 16);
    expect(sealed).to.not.include(SECRET);
    expect(bytes.toString('latin1')).to.not.include(SECRET.slice(0, 8));
  });

  it('seals the same secret differently each time (a fresh IV)', () => {
    const a = seal(KEY, 'acc_1', SECRET);
    const b = seal(KEY, 'acc_1', SECRET);
    expect(a).to.not.equal(b);
    expect(Buffer.from(a, 'base64').subarray(1, 13).equals(Buffer.from(b, 'base64').subarray(1, 13))).to.equal(false);
  });

  it('does not open for another account: a sealed secret moved to another row stays shut', () => {
    const sealed = seal(KEY, 'acc_1', SECRET);
    expect(() => open(KEY, 'acc_2', sealed)).to.throw(SealedSecretError, /does not open/);
  });

  it('does not open under another key', () => {
    const sealed = seal(KEY, 'acc_1', SECRET);
    expect(() => open(randomBytes(32), 'acc_1', sealed)).to.throw(SealedSecretError, /does not open/);
  });

  it('does not open once any part is altered: the IV, the ciphertext or the tag', () => {
    const sealed = seal(KEY, 'acc_1', SECRET);
    for (const index of [1, 12, 13, 20, -17, -1]) {
      expect(() => open(KEY, 'acc_1', flipped(sealed, index)), `byte ${index}`).to.throw(SealedSecretError, /does not open/);
    }
  });

  it('refuses another version byte and what is too short to be sealed, without trying the key', () => {
    const sealed = seal(KEY, 'acc_1', SECRET);
    expect(() => open(KEY, 'acc_1', flipped(sealed, 0))).to.throw(SealedSecretError, /format/);
    expect(() => open(KEY, 'acc_1', Buffer.from([1, 2, 3]).toString('base64'))).to.throw(SealedSecretError, /format/);
  });

  it('never names the secret in its errors', () => {
    const sealed = seal(KEY, 'acc_1', SECRET);
    try {
      open(KEY, 'acc_2', sealed);
      expect.fail('opened for another account');
    } catch (error) {
      expect((error as Error).message).to.not.include(SECRET);
    }
  });

  it('takes only a 256-bit key', () => {
    expect(() => seal(Buffer.alloc(16), 'acc_1', SECRET)).to.throw(RangeError, /32 bytes/);
  });
});

describe('BROKER_CREDENTIALS_KEY', () => {
  const hex = 'ab'.repeat(32);
  const base64 = Buffer.alloc(32, 9).toString('base64');

  it('is read as 64 hexadecimal digits or as base64 of 32 bytes', () => {
    expect(loadConfig({ BROKER_CREDENTIALS_KEY: hex }).brokers.credentialsKey).to.deep.equal({
      bytes: Buffer.from(hex, 'hex'),
      derived: false,
    });
    expect(loadConfig({ BROKER_CREDENTIALS_KEY: base64 }).brokers.credentialsKey?.bytes.equals(Buffer.alloc(32, 9))).to.equal(true);
  });

  it('is absent without the variable, unless the start derives one (--demo, the tests)', () => {
    expect(loadConfig({}).brokers.credentialsKey).to.equal(undefined);
    const derived = loadConfig({}, { deriveBrokerKey: true }).brokers.credentialsKey!;
    expect(derived.derived).to.equal(true);
    expect(derived.bytes).to.have.length(32);
    expect(loadConfig({}, { deriveBrokerKey: true }).brokers.credentialsKey!.bytes.equals(derived.bytes), 'the same every time').to.equal(
      true,
    );
    expect(DERIVED_BROKER_KEY_LABEL).to.match(/protects nothing/);
    expect(loadConfig({ BROKER_CREDENTIALS_KEY: hex }, { deriveBrokerKey: true }).brokers.credentialsKey!.derived).to.equal(false);
  });

  for (const bad of ['short', 'ab'.repeat(31), 'ab'.repeat(33), Buffer.alloc(16).toString('base64'), `${'z'.repeat(63)}!`]) {
    it(`refuses "${bad.slice(0, 12)}…" (${bad.length} characters), naming the variable and not the value`, () => {
      expect(() => loadConfig({ BROKER_CREDENTIALS_KEY: bad }))
        .to.throw(/^BROKER_CREDENTIALS_KEY: must be 32 random bytes/)
        .with.property('message')
        .that.does.not.include(bad);
    });
  }
});
