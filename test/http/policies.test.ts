import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';

const NOW = new Date('2026-11-20T14:30:00.000Z');

describe('disclosures and investment policies', () => {
  let server: TestServer;
  let disclosureVersion: string;

  before(async () => {
    server = await startTestServer({}, { clock: { now: () => NOW } });
    const token = await server.token(['read']);
    disclosureVersion = (await server.api.get('/v1/disclosures/current', { token })).body.version;
  });
  after(() => server.close());

  const policyBody = (overrides: Record<string, unknown> = {}) => ({
    limits: {
      max_order_notional: 10000,
      max_position_weight: 0.7,
      max_daily_notional: 25000,
      max_daily_loss: 2000,
      allowed_markets: ['US'],
      blocked_symbols: ['NVDA'],
    },
    target_allocation: [
      { symbol: 'VTI', weight: 0.6 },
      { symbol: 'BND', weight: 0.4 },
    ],
    consent: { disclosure_version: disclosureVersion, accepted: true, signer_name: 'Ada Lovelace' },
    ...overrides,
  });
  const create = (token: string, json: unknown, headers: Record<string, string> = {}) =>
    server.api.post('/v1/policies', { token, json, headers });
  const problemSlug = (body: { type: string }) => body.type.split('/').pop();

  async function expectNothingStored(token: string) {
    expect((await server.api.get('/v1/policies', { token })).body.data).to.deep.equal([]);
    expect((await server.api.get('/v1/policies/current', { token })).status).to.equal(404);
  }

  describe('GET /v1/disclosures/current', () => {
    it('serves the version, title, text and the SHA-256 of the text’s UTF-8 bytes', async () => {
      const response = await server.api.get('/v1/disclosures/current', { token: await server.token(['read']) });
      expect(response.status).to.equal(200);
      const { version, title, text, sha256, effective_at } = response.body;
      expect(version).to.be.a('string').and.not.empty;
      expect(title).to.be.a('string').and.not.empty;
      expect(text)
        .to.match(/E-SIGN/)
        .and.match(/paper/i);
      expect(sha256).to.equal(createHash('sha256').update(text, 'utf8').digest('hex'));
      expect(Date.parse(effective_at)).to.be.at.most(NOW.getTime());
    });

    it('returns 401 without a token', async () => {
      expect((await server.api.get('/v1/disclosures/current')).status).to.equal(401);
    });
  });

  describe('versions', () => {
    let token: string;
    let v1: any;
    let v2: any;

    before(async () => {
      token = await server.token(['read', 'trade']);
      const first = await create(token, policyBody());
      expect(first.status).to.equal(201);
      expect(first.headers.get('location')).to.equal('/v1/policies/1');
      v1 = first.body;
      const second = await create(token, policyBody({ target_allocation: [{ symbol: 'SPY', weight: 1 }], rebalance_band: 0.1 }));
      expect(second.status).to.equal(201);
      expect(second.headers.get('location')).to.equal('/v1/policies/2');
      v2 = second.body;
    });

    it('POST /v1/policies creates version 1, then 2, with the body as sent and the default rebalance band', () => {
      expect(v1).to.include({ version: 1, rebalance_band: 0.05, created_at: NOW.toISOString() });
      expect(v1.limits).to.deep.equal(policyBody().limits);
      expect(v1.target_allocation).to.deep.equal(policyBody().target_allocation);
      expect(v2).to.include({ version: 2, rebalance_band: 0.1 });
      expect(v2.target_allocation).to.deep.equal([{ symbol: 'SPY', weight: 1 }]);
    });

    it('GET /v1/policies lists newest first and pages with limit and next_cursor', async () => {
      const all = await server.api.get('/v1/policies', { token });
      expect(all.body.data.map((p: any) => p.version)).to.deep.equal([2, 1]);
      expect(all.body.next_cursor).to.equal(null);

      const first = await server.api.get('/v1/policies?limit=1', { token });
      expect(first.body.data.map((p: any) => p.version)).to.deep.equal([2]);
      expect(first.body.next_cursor).to.be.a('string');
      const second = await server.api.get(`/v1/policies?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`, { token });
      expect(second.body.data.map((p: any) => p.version)).to.deep.equal([1]);
      expect(second.body.next_cursor).to.equal(null);
    });

    it('GET /v1/policies returns 400 for a cursor it did not issue', async () => {
      const response = await server.api.get('/v1/policies?cursor=not-a-cursor', { token });
      expect(response.status).to.equal(400);
      expect(problemSlug(response.body)).to.equal('validation-error');
    });

    it('GET /v1/policies/{version} returns that version unchanged by later ones', async () => {
      const response = await server.api.get('/v1/policies/1', { token });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal(v1);
    });

    it('GET /v1/policies/current returns the latest version', async () => {
      const response = await server.api.get('/v1/policies/current', { token });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal(v2);
    });

    it('GET /v1/policies/{version} returns 404 for a version that does not exist', async () => {
      const response = await server.api.get('/v1/policies/3', { token });
      expect(response.status).to.equal(404);
      expect(problemSlug(response.body)).to.equal('not-found');
    });

    it('another account sees none of them: its GET /v1/policies/1 and /current are 404 and its list is empty', async () => {
      const other = await server.token(['read']);
      expect((await server.api.get('/v1/policies/1', { token: other })).status).to.equal(404);
      await expectNothingStored(other);
    });
  });

  describe('consent record', () => {
    it('stores the disclosure version and hash, signer, time, client, IP and user agent', async () => {
      const client = await server.createClient(['trade']);
      const { access_token: token } = await server.services.tokens.issue({ ...client, generation: 1 }, ['trade']);
      const disclosure = (await server.api.get('/v1/disclosures/current', { token: await server.token(['read']) })).body;
      const response = await create(token, policyBody(), { 'user-agent': 'policies-test/1.0 (+mocha)' });
      expect(response.status).to.equal(201);
      expect(response.body.created_by_client_id).to.equal(client.client_id);
      const { consent } = response.body;
      expect(consent).to.include({
        disclosure_version: disclosure.version,
        disclosure_sha256: disclosure.sha256,
        accepted: true,
        signer_name: 'Ada Lovelace',
        accepted_at: NOW.toISOString(),
        client_id: client.client_id,
        user_agent: 'policies-test/1.0 (+mocha)',
      });
      expect(consent.ip).to.match(/127\.0\.0\.1|::1/);
    });
  });

  describe('consent problems: 422 with their own type, nothing stored', () => {
    const cases: Array<[string, (body: Record<string, any>) => Record<string, any>, string]> = [
      ['missing consent', ({ consent: _omitted, ...rest }) => rest, 'consent-required'],
      ['refused consent', (body) => ({ ...body, consent: { ...body.consent, accepted: false } }), 'consent-refused'],
      [
        'consent to an outdated disclosure',
        (body) => ({ ...body, consent: { ...body.consent, disclosure_version: '2020-01-01' } }),
        'consent-outdated',
      ],
    ];
    for (const [name, mutate, slug] of cases) {
      it(`POST /v1/policies with ${name} returns 422 ${slug}`, async () => {
        const token = await server.token(['read', 'trade']);
        const response = await create(token, mutate(policyBody()));
        expect(response.status).to.equal(422);
        expect(problemSlug(response.body)).to.equal(slug);
        await expectNothingStored(token);
      });
    }

    it('names the current disclosure version when consent is outdated', async () => {
      const token = await server.token(['trade']);
      const response = await create(token, policyBody({ consent: { disclosure_version: '2020-01-01', accepted: true, signer_name: 'A' } }));
      expect(response.body.detail).to.include(disclosureVersion);
    });
  });

  describe('policy problems', () => {
    const limits = policyBody().limits;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        'weights summing to 0.9',
        {
          target_allocation: [
            { symbol: 'VTI', weight: 0.5 },
            { symbol: 'BND', weight: 0.4 },
          ],
        },
        'invalid-policy',
      ],
      [
        'a symbol twice in the target',
        {
          target_allocation: [
            { symbol: 'VTI', weight: 0.5 },
            { symbol: 'VTI', weight: 0.5 },
          ],
        },
        'invalid-policy',
      ],
      ['a blocked target symbol', { limits: { ...limits, blocked_symbols: ['BND'] } }, 'invalid-policy'],
      ['a target symbol outside allowed_symbols', { limits: { ...limits, allowed_symbols: ['VTI', 'SPY'] } }, 'invalid-policy'],
      ['an unknown target symbol', { target_allocation: [{ symbol: 'ZZZZ', weight: 1 }] }, 'unknown-symbol'],
      ['an unknown blocked symbol', { limits: { ...limits, blocked_symbols: ['NOPE'] } }, 'unknown-symbol'],
      ['a market the paper broker does not trade', { limits: { ...limits, allowed_markets: ['US', 'JP'] } }, 'unsupported-market'],
    ];
    for (const [name, overrides, slug] of cases) {
      it(`POST /v1/policies with ${name} returns 422 ${slug} and stores nothing`, async () => {
        const token = await server.token(['read', 'trade']);
        const response = await create(token, policyBody(overrides));
        expect(response.status).to.equal(422);
        expect(problemSlug(response.body)).to.equal(slug);
        await expectNothingStored(token);
      });
    }

    it('refuses sub-cent amounts with a 400 naming each field, and stores nothing', async () => {
      const token = await server.token(['read', 'trade']);
      const response = await create(token, policyBody({ limits: { ...limits, max_order_notional: 1000.005, max_daily_loss: 99.999 } }));
      expect(response.status).to.equal(400);
      expect(problemSlug(response.body)).to.equal('validation-error');
      expect(response.body.errors).to.deep.equal([
        { pointer: '/limits/max_order_notional', detail: 'must be an amount in whole cents (at most 2 decimals)' },
        { pointer: '/limits/max_daily_loss', detail: 'must be an amount in whole cents (at most 2 decimals)' },
      ]);
      await expectNothingStored(token);
      expect((await create(token, policyBody({ limits: { ...limits, max_order_notional: 1000.05 } }))).status).to.equal(201);
    });

    it('accepts weights whose decimal sum is exactly 1 although their binary floating-point sum is not', async () => {
      const targets = [
        { symbol: 'VTI', weight: 0.1 },
        { symbol: 'BND', weight: 0.2 },
        { symbol: 'GLD', weight: 0.7 },
      ];
      const response = await create(await server.token(['trade']), policyBody({ target_allocation: targets }));
      expect(response.status).to.equal(201);
    });

    it('states the sum of the weights in the detail, as a fraction and in percent', async () => {
      const response = await create(await server.token(['trade']), policyBody({ target_allocation: [{ symbol: 'VTI', weight: 0.5 }] }));
      expect(response.body.detail).to.equal('Target weights sum to 0.5 (50 %); they must sum to 1 (100 %), within 1e-9.');
    });

    it('lists each unknown symbol in unknown_symbols', async () => {
      const response = await create(
        await server.token(['trade']),
        policyBody({ limits: { ...limits, allowed_symbols: ['VTI', 'BND', 'XXXX'], blocked_symbols: ['YYYY'] } }),
      );
      expect(response.body.unknown_symbols).to.have.members(['XXXX', 'YYYY']);
    });

    it('lists the supported markets for an unsupported one', async () => {
      const response = await create(await server.token(['trade']), policyBody({ limits: { ...limits, allowed_markets: ['GB'] } }));
      expect(response.body.supported_markets).to.deep.equal(['US']);
    });

    it('POST /v1/policies returns 400 validation-error for a weight above 1', async () => {
      const token = await server.token(['read', 'trade']);
      const response = await create(token, policyBody({ target_allocation: [{ symbol: 'VTI', weight: 2 }] }));
      expect(response.status).to.equal(400);
      expect(problemSlug(response.body)).to.equal('validation-error');
      expect(response.body.errors.map((e: any) => e.pointer)).to.include('/target_allocation/0/weight');
      await expectNothingStored(token);
    });
  });

  describe('scopes', () => {
    it('POST /v1/policies returns 403 for a read-only token and 201 for a trade token', async () => {
      expect((await create(await server.token(['read']), policyBody())).status).to.equal(403);
      expect((await create(await server.token(['trade']), policyBody())).status).to.equal(201);
    });
  });

  describe('concurrency', () => {
    it('eight concurrent creates on one account take eight consecutive versions without a 5xx', async () => {
      const token = await server.token(['read', 'trade']);
      const responses = await Promise.all(Array.from({ length: 8 }, () => create(token, policyBody())));
      expect(responses.map((r) => r.status)).to.deep.equal(Array(8).fill(201));
      expect(responses.map((r) => r.body.version).sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
      const listed = await server.api.get('/v1/policies?limit=100', { token });
      expect(listed.body.data.map((p: any) => p.version)).to.deep.equal([8, 7, 6, 5, 4, 3, 2, 1]);
    });
  });
});
