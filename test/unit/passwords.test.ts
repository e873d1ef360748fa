import { expect } from 'chai';
import { normalizeEmail, passwordProblem } from '../../src/auth/passwords.js';

describe('emails and passwords of account holders', () => {
  it('normalises emails as people mean them: NFKC, trimmed, lower-case', () => {
    expect(normalizeEmail('  Ada.Lovelace@Example.COM ')).to.equal('ada.lovelace@example.com');
    expect(normalizeEmail('\uFF41da@example.com')).to.equal('ada@example.com');
  });

  it('refuses short, over-long (bcrypt reads 72 bytes), common, repetitive and email-like passwords', () => {
    expect(passwordProblem('eleven char', 'a@example.com')).to.include('at least 12');
    expect(passwordProblem('é'.repeat(40), 'a@example.com')).to.include('72 bytes');
    expect(passwordProblem('Password1234', 'a@example.com')).to.include('most common');
    expect(passwordProblem('abababababab', 'a@example.com')).to.include('repeats');
    expect(passwordProblem('my name is lovelace!', 'lovelace@example.com')).to.include('email');
    expect(passwordProblem('a long and unusual passphrase', 'ada@example.com')).to.equal(null);
  });
});
