import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { solveChallenge, solvedChallenge } from '../../scripts/solve-challenge.js';
import { startTestServer, type TestServer } from '../support/server.js';
import type { ApiResponse } from '../support/client.js';

describe('accounts: proof of work, sign-up, login and contact (POST /v1/signup, /v1/login, /v1/contact)', () => {
  let server: TestServer;
  let now = Date.now();
  const clock = { now: () => new Date(now) };
  let addresses = 0;
  // Every request from its own client address (X-Forwarded-For, trusted from loopback here), so failure counts
  // of one test do not raise the difficulty of another.
  const from = () => `10.0.0.${++addresses}`;

  before(async () => {
    server = await startTestServer({ POW_DIFFICULTY: '8', TRUST_PROXY: 'loopback' }, { clock });
  });
  after(() => server.close());

  function expectProblem(response: ApiResponse, status: number, slug: string) {
    expect(response.status, JSON.stringify(response.body)).to.equal(status);
    expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(response.body.type).to.equal(`${server.url}/problems/${slug}`);
    expect(response.body.detail).to.be.a('string').and.not.empty;
  }

  async function challenge(ip: string, purpose?: string) {
    const response = await server.api.get(`/v1/challenge${purpose ? `?purpose=${purpose}` : ''}`, { headers: { 'x-forwarded-for': ip } });
    expect(response.status).to.equal(200);
    return response.body as { challenge: string; difficulty: number; expires_at: string; purpose: string };
  }

  async function solved(ip: string, purpose?: string) {
    const issued = await challenge(ip, purpose);
    return solveChallenge(issued.challenge, issued.difficulty);
  }

  const post = (path: string, json: unknown, ip: string, solution?: string) =>
    server.api.post(path, { json, headers: { 'x-forwarded-for': ip, ...(solution !== undefined ? { 'x-ias-challenge': solution } : {}) } });

  let people = 0;
  const person = () => ({
    email: `Person${++people}.${Date.now()}@Example.com`,
    password: 'a long and unusual passphrase',
    name: 'Ada Lovelace',
  });

  it('GET /v1/challenge issues a signed SHA-256 challenge that is never cached', async () => {
    const response = await server.api.get('/v1/challenge?purpose=signup');
    expect(response.status).to.equal(200);
    expect(response.headers.get('cache-control')).to.equal('no-store');
    expect(response.body).to.include({ algorithm: 'SHA-256', difficulty: 8, purpose: 'signup' });
    expect(response.body.challenge).to.match(/^v1\.signup\.8\.\d+\.[\w-]{22}\.[\w-]{43}$/);
    expect(Date.parse(response.body.expires_at) - now).to.be.within(290_000, 300_000);
    expect((await server.api.get('/v1/challenge')).body.purpose).to.equal('any');
    expectProblem(await server.api.get('/v1/challenge?purpose=admin', { unchecked: true }), 400, 'validation-error');
  });

  it('refuses a missing, malformed, wrong, forged, misdirected, expired and replayed solution, each with its own problem', async () => {
    const ip = from();
    const body = person();
    expectProblem(await post('/v1/signup', body, ip), 400, 'challenge-missing');
    expectProblem(await post('/v1/signup', body, ip, 'not a solution'), 400, 'challenge-malformed');
    expectProblem(await post('/v1/signup', body, ip, 'v1.signup.8.1.abc.def:12'), 400, 'challenge-malformed');

    const issued = await challenge(ip, 'signup');
    const good = solveChallenge(issued.challenge, issued.difficulty);
    // A nonce whose hash misses the difficulty, found by hand (every run: the first nonce that misses it).
    const misses = (nonce: number) =>
      !createHash('sha256')
        .update(`${issued.challenge}:${nonce}`)
        .digest()
        .subarray(0, 1)
        .equals(Buffer.from([0]));
    const missing = Array.from({ length: 64 }, (_, nonce) => nonce).find(misses)!;
    expect(issued.difficulty, 'a difficulty of 8 bits or more: a first byte other than 0 misses it').to.be.at.least(8);
    expect(`${issued.challenge}:${missing}`).to.not.equal(good);
    expectProblem(await post('/v1/signup', body, ip, `${issued.challenge}:${missing}`), 403, 'challenge-failed');
    const forged = issued.challenge.replace(/\.8\./, '.1.');
    expectProblem(await post('/v1/signup', body, ip, solveChallenge(forged, 1)), 403, 'challenge-failed');
    const forLogin = await solved(ip, 'login');
    const misdirected = await post('/v1/signup', body, ip, forLogin);
    expectProblem(misdirected, 403, 'challenge-failed');
    expect(misdirected.body.detail).to.include('purpose=signup');

    const late = await solved(ip, 'signup');
    now += 301_000;
    try {
      expectProblem(await post('/v1/signup', body, ip, late), 403, 'challenge-expired');
    } finally {
      now -= 301_000;
    }
    // The address has failed often by now: its challenges are harder, and the easy one it holds no longer suffices.
    expect((await challenge(ip)).difficulty).to.be.greaterThan(8);
    expectProblem(await post('/v1/signup', body, ip, good), 403, 'challenge-failed');

    const other = from();
    const once = await solved(other, 'signup');
    expect((await post('/v1/signup', body, other, once)).status).to.equal(201);
    expectProblem(await post('/v1/signup', person(), other, once), 409, 'challenge-replayed');
  });

  it('creates an account once per normalised email, and refuses short, common or email-like passwords', async () => {
    const ip = from();
    const body = person();
    const created = await post('/v1/signup', body, ip, await solved(ip, 'signup'));
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ email: body.email.toLowerCase(), name: 'Ada Lovelace' });
    expect(created.body.id).to.match(/^acct_/);

    const again = await post('/v1/signup', { ...body, email: body.email.toUpperCase() }, ip, await solved(ip, 'signup'));
    expectProblem(again, 409, 'email-taken');

    for (const [password, detail] of [
      ['short one', '12'],
      ['Password1234', 'most common'],
      ['aaaaaaaaaaaaaaaa', 'repeats'],
    ]) {
      const refused = await post('/v1/signup', { ...person(), password }, ip, await solved(ip, 'signup'));
      expectProblem(refused, 400, 'validation-error');
      expect(refused.body.errors[0].pointer).to.equal('/password');
      expect(refused.body.errors[0].detail).to.include(detail!);
    }
  });

  it('logs in with a session that every /v1 resource refuses, and answers a wrong password and an unknown email alike', async () => {
    const ip = from();
    const body = person();
    expect((await post('/v1/signup', body, ip, await solved(ip, 'signup'))).status).to.equal(201);

    const session = await post('/v1/login', { email: body.email.toUpperCase(), password: body.password }, ip, await solved(ip, 'login'));
    expect(session.status).to.equal(200);
    expect(session.headers.get('cache-control')).to.equal('no-store');
    expect(session.body.session_token).to.match(/^ias_session_/);
    expect(Date.parse(session.body.expires_at)).to.be.greaterThan(now);

    for (const path of ['/v1/portfolio?market=US', '/v1/orders', '/v1/kill-switch']) {
      const refused = await server.api.get(path, { token: session.body.session_token });
      expectProblem(refused, 401, 'unauthorized');
      expect(refused.headers.get('www-authenticate')).to.include('error="invalid_token"');
    }

    const wrong = await post('/v1/login', { email: body.email, password: 'not the password at all' }, ip, await solved(ip, 'login'));
    const unknown = await post(
      '/v1/login',
      { email: `nobody.${Date.now()}@example.com`, password: 'not the password at all' },
      ip,
      await solved(ip, 'login'),
    );
    expectProblem(wrong, 401, 'invalid-credentials');
    expectProblem(unknown, 401, 'invalid-credentials');
    expect(unknown.body.detail).to.equal(wrong.body.detail);
    expect(Object.keys(unknown.body).sort()).to.deep.equal(Object.keys(wrong.body).sort());
  });

  it('locks an email address after 5 failures (known or not), refusing even the right password until the lock ends', async () => {
    const body = person();
    const signupIp = from();
    expect((await post('/v1/signup', body, signupIp, await solved(signupIp, 'signup'))).status).to.equal(201);
    const attempt = async (password: string) => {
      const ip = from(); // a different address each time: the lock follows the email address
      return post('/v1/login', { email: body.email, password }, ip, await solved(ip, 'login'));
    };
    for (let i = 0; i < 5; i++) expectProblem(await attempt('wrong password number'), 401, 'invalid-credentials');
    const locked = await attempt(body.password);
    expectProblem(locked, 429, 'login-locked');
    expect(Number(locked.headers.get('retry-after'))).to.be.within(1, 30);

    now += 31_000;
    try {
      expect((await attempt(body.password)).status).to.equal(200);
    } finally {
      now -= 31_000;
    }
  });

  it('doubles the lock per further failure from 30 s to at most 15 minutes, and a successful login clears the count', async () => {
    const body = person();
    const signupIp = from();
    expect((await post('/v1/signup', body, signupIp, await solved(signupIp, 'signup'))).status).to.equal(201);
    const attempt = async (password: string) => {
      const ip = from();
      return post('/v1/login', { email: body.email, password }, ip, await solved(ip, 'login'));
    };
    const start = now;
    try {
      for (let i = 0; i < 4; i++) expectProblem(await attempt('wrong password number'), 401, 'invalid-credentials');
      // Failures 5 to 10 lock for 30, 60, 120, 240, 480 and then 900 s (960 capped at 15 minutes); each lock refuses
      // the right password too, and ends when it says.
      for (const seconds of [30, 60, 120, 240, 480, 900]) {
        expectProblem(await attempt('wrong password number'), 401, 'invalid-credentials');
        const locked = await attempt(body.password);
        expectProblem(locked, 429, 'login-locked');
        expect(locked.headers.get('retry-after'), `after ${seconds} s of lock were earned`).to.equal(String(seconds));
        now += (seconds - 1) * 1000;
        expectProblem(await attempt(body.password), 429, 'login-locked');
        now += 1000;
      }
      expect((await attempt(body.password)).status, 'the lock has ended').to.equal(200);
      // The success cleared the count: four failures lock nothing, the fifth does.
      for (let i = 0; i < 4; i++) expectProblem(await attempt('wrong password number'), 401, 'invalid-credentials');
      expect((await attempt(body.password)).status).to.equal(200);
    } finally {
      now = start;
    }
  });

  it('locks a client address after 20 failed logins within the hour, whatever the email, and no other address', async () => {
    const ip = from();
    const other = from();
    const attempt = async (address: string, n: number) =>
      post(
        '/v1/login',
        { email: `nobody${n}.${people}@example.com`, password: 'not the password at all' },
        address,
        await solved(address, 'login'),
      );
    for (let n = 1; n <= 20; n++) expectProblem(await attempt(ip, n), 401, 'invalid-credentials');
    const locked = await attempt(ip, 21);
    expectProblem(locked, 429, 'login-locked');
    expect(locked.headers.get('retry-after')).to.equal('30');
    expectProblem(await attempt(other, 21), 401, 'invalid-credentials');
  });

  it('accepts a contact message (202) and keeps it for the operators', async () => {
    const ip = from();
    const message = { email: 'Visitor@Example.com', name: 'Visitor', message: `Hello from test ${Date.now()}` };
    const receipt = await post('/v1/contact', message, ip, await solvedChallenge(`http://127.0.0.1:${server.running.port}`, 'contact'));
    expect(receipt.status).to.equal(202);
    expect(receipt.body.id).to.match(/^msg_/);
    const stored = (await server.services.people.contactMessages()).find((m) => m.id === receipt.body.id);
    expect(stored).to.include({ email: 'visitor@example.com', name: 'Visitor', message: message.message });
  });
});
