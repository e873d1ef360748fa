import { expect } from 'chai';
import { engage, release } from '../../src/services/kill-switch.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, manualClock, propose } from '../support/trading.js';

const ALL_SCOPES = ['read', 'write', 'trade'];
const slug = (body: { type: string }) => body.type.split('/').pop();
const withoutGeneratedAt = ({ generated_at: _ignored, ...rest }: Record<string, unknown>) => rest;

describe('daily reports', () => {
  const clock = manualClock('2026-11-18T08:00:00.000Z');
  let server: TestServer;
  let holder: { token: string; accountId: string; clientId: string };
  let orders: Record<'filled' | 'overBudget' | 'rejected' | 'cancelled' | 'blockedSymbol' | 'pending' | 'stale', any>;
  let fillNotional: number;
  let midnightValue: number;
  let first: any;

  async function newHolder(scopes = ALL_SCOPES) {
    const client = await server.createClient(scopes);
    const issued = await server.services.tokens.issue({ ...client, generation: 1 }, scopes);
    return { token: issued.access_token, accountId: client.account_id, clientId: client.client_id };
  }
  const at = (iso: string) => clock.set(iso);
  const generate = (date: string, token = holder.token) => server.api.post('/v1/reports/daily', { token, json: { date } });
  const act = async (path: string, json?: unknown) => server.api.post(path, { token: holder.token, json });

  before(async () => {
    server = await startTestServer({}, { clock });
    holder = await newHolder();
    const db = server.database.db.kysely;

    at('2026-11-18T08:00:00.000Z');
    await createPolicy(server, holder.token, { limits: { blocked_symbols: ['NVDA'] } });
    at('2026-11-18T09:00:00.000Z');
    const [stale] = await propose(server, holder, [{ symbol: 'VTI', side: 'buy', quantity: '1' }]);

    at('2026-11-19T08:00:00.000Z');
    await createPolicy(server, holder.token, { limits: { blocked_symbols: ['NVDA'], max_order_notional: 60_000 } });
    at('2026-11-19T10:00:00.000Z');
    const [filled, overBudget, rejected, cancelled, blockedSymbol, pending] = await propose(server, holder, [
      { symbol: 'VTI', side: 'buy', quantity: '10' },
      { symbol: 'VTI', side: 'buy', quantity: '400' },
      { symbol: 'VTI', side: 'buy', quantity: '5' },
      { symbol: 'BND', side: 'buy', quantity: '10' },
      { symbol: 'NVDA', side: 'buy', quantity: '1' },
      { symbol: 'BND', side: 'buy', quantity: '1' },
    ]);
    orders = { filled, overBudget, rejected, cancelled, blockedSymbol, pending, stale } as typeof orders;

    at('2026-11-19T11:00:00.000Z');
    const approved = await act(`/v1/orders/${filled!.id}/approve`);
    expect(approved.status, approved.text).to.equal(200);
    fillNotional = Math.round(approved.body.fill_price * 10 * 100) / 100;
    at('2026-11-19T11:05:00.000Z');
    expect((await act(`/v1/orders/${overBudget!.id}/approve`)).status).to.equal(422);
    at('2026-11-19T11:10:00.000Z');
    expect((await act(`/v1/orders/${rejected!.id}/reject`, { reason: 'too much VTI this week' })).status).to.equal(200);
    at('2026-11-19T11:15:00.000Z');
    expect((await act(`/v1/orders/${cancelled!.id}/cancel`, { reason: 'bonds can wait' })).status).to.equal(200);
    at('2026-11-19T11:20:00.000Z');
    expect((await act(`/v1/orders/${blockedSymbol!.id}/approve`)).status).to.equal(422);

    at('2026-11-19T12:00:00.000Z');
    expect((await act('/v1/kill-switch', { reason: 'stepping away' })).status).to.equal(200);
    // The global switch and every release are the operator's (CLI); the API has no route for them.
    await engage(db, 'global', 'operator', 'exchange outage drill', new Date('2026-11-19T13:00:00.000Z'));
    await release(db, 'global', 'operator', 'drill over', new Date('2026-11-19T13:30:00.000Z'));
    await release(db, holder.accountId, 'operator', 'back at the desk', new Date('2026-11-19T14:00:00.000Z'));

    at('2026-11-20T00:00:00.000Z');
    midnightValue = (await server.api.get('/v1/portfolio?market=US', { token: holder.token })).body.total_value;
    at('2026-11-20T09:00:00.000Z');
    await createPolicy(server, holder.token, { limits: { blocked_symbols: ['NVDA', 'QQQ'] } });
    at('2026-11-20T09:30:00.000Z');
    first = await generate('2026-11-19');

    at('2026-11-20T10:00:00.000Z');
    const [later] = await propose(server, holder, [{ symbol: 'VTI', side: 'buy', quantity: '2' }]);
    at('2026-11-20T10:30:00.000Z');
    expect((await act(`/v1/orders/${later!.id}/approve`)).status).to.equal(200);
  });
  after(() => server.close());

  describe('POST /v1/reports/daily', () => {
    it('returns 201 with Location and the report of a finished day', () => {
      expect(first.status, first.text).to.equal(201);
      expect(first.headers.get('location')).to.equal('/v1/reports/daily/2026-11-19');
      expect(first.body.id).to.match(/^rpt_/);
      expect(first.body).to.include({ date: '2026-11-19', currency: 'USD', generated_at: '2026-11-20T09:30:00.000Z' });
    });

    it('reports the policy version in force at the end of the day, not a later one', () => {
      expect(first.body.policy_version).to.equal(2);
    });

    it('counts the ideas and orders created that day, those still awaiting a decision at its end, and each outcome reached that day', () => {
      expect(first.body.ideas_generated).to.equal(1);
      // The 6 created on the 19th: one still proposed at midnight (it expires on the 20th); the 18th's order expired on the 19th.
      expect(first.body.orders).to.deep.equal({ created: 6, proposed: 1, filled: 1, rejected: 1, cancelled: 1, blocked: 2, expired: 1 });
    });

    it('lists every decision oldest first with who decided, when and why', () => {
      const { decisions } = first.body;
      expect(decisions.map((d: any) => [d.order_id, d.outcome, d.decided_at])).to.deep.equal([
        [orders.stale.id, 'expired', '2026-11-19T09:00:00.000Z'],
        [orders.filled.id, 'filled', '2026-11-19T11:00:00.000Z'],
        [orders.overBudget.id, 'blocked', '2026-11-19T11:05:00.000Z'],
        [orders.rejected.id, 'rejected', '2026-11-19T11:10:00.000Z'],
        [orders.cancelled.id, 'cancelled', '2026-11-19T11:15:00.000Z'],
        [orders.blockedSymbol.id, 'blocked', '2026-11-19T11:20:00.000Z'],
      ]);
      expect(decisions[0]).to.include({ decided_by_client_id: null, symbol: 'VTI', side: 'buy', quantity: 1 });
      expect(decisions[1]).to.include({ decided_by_client_id: holder.clientId, quantity: 10 });
      expect(decisions[1].decided_by, 'who decided, by name').to.deep.equal({ kind: 'client', name: 'API client' });
      expect(decisions[0].decided_by).to.deep.equal({ kind: 'system', name: 'the service' });
      expect(decisions[3]).to.include({ decided_by_client_id: holder.clientId, reason: 'too much VTI this week' });
      expect(decisions[4]).to.include({ decided_by_client_id: holder.clientId, reason: 'bonds can wait' });
      for (const d of decisions.filter((d: any) => d.outcome !== 'blocked')) expect(d.failed_checks).to.deep.equal([]);
    });

    it('shows the failed checks of blocked orders and counts only risk-gate blocks as such', () => {
      const [overBudget, blockedSymbol] = first.body.decisions.filter((d: any) => d.outcome === 'blocked');
      expect(overBudget.failed_checks.map((c: any) => c.check)).to.include('risk.buying_power');
      expect(overBudget.failed_checks.every((c: any) => typeof c.message === 'string' && c.message.length > 0)).to.equal(true);
      expect(blockedSymbol.failed_checks.map((c: any) => c.check)).to.deep.equal(['policy.symbol_blocked']);
      expect(first.body.risk_gate_blocks).to.equal(1);
    });

    it('reports the filled notional and start and end values consistent with the portfolio', () => {
      expect(first.body.notional_traded).to.equal(fillNotional);
      expect(first.body.start_value).to.equal(100_000);
      expect(first.body.end_value).to.equal(midnightValue);
      expect(first.body.pnl).to.be.closeTo(midnightValue - 100_000, 0.001);
    });

    it('lists the account’s and the global kill-switch events of the day', () => {
      expect(first.body.kill_switch_events).to.deep.equal([
        { action: 'engaged', level: 'account', at: '2026-11-19T12:00:00.000Z', by: holder.clientId, reason: 'stepping away' },
        { action: 'engaged', level: 'global', at: '2026-11-19T13:00:00.000Z', by: 'operator', reason: 'exchange outage drill' },
        { action: 'released', level: 'global', at: '2026-11-19T13:30:00.000Z', by: 'operator', reason: 'drill over' },
        { action: 'released', level: 'account', at: '2026-11-19T14:00:00.000Z', by: 'operator', reason: 'back at the desk' },
      ]);
    });

    it('regenerates a finished day identically, keeping the id, even after later trades', async () => {
      at('2026-11-20T11:00:00.000Z');
      const again = await generate('2026-11-19');
      expect(again.status).to.equal(201);
      expect(again.body.generated_at).to.equal('2026-11-20T11:00:00.000Z');
      expect(withoutGeneratedAt(again.body)).to.deep.equal(withoutGeneratedAt(first.body));
      expect((await server.api.get('/v1/reports/daily/2026-11-19', { token: holder.token })).body).to.deep.equal(again.body);
    });

    it('reports today as a partial day valued now, starting where yesterday ended', async () => {
      at('2026-11-20T11:00:00.000Z');
      const today = await generate('2026-11-20');
      expect(today.status).to.equal(201);
      const portfolio = await server.api.get('/v1/portfolio?market=US', { token: holder.token });
      expect(today.body.start_value).to.equal(first.body.end_value);
      expect(today.body.end_value).to.equal(portfolio.body.total_value);
      expect(today.body.pnl).to.be.closeTo(today.body.end_value - today.body.start_value, 0.001);
      expect(today.body).to.include({ policy_version: 3, ideas_generated: 1 });
      expect(today.body.orders).to.deep.equal({ created: 1, proposed: 0, filled: 1, rejected: 0, cancelled: 0, blocked: 0, expired: 1 });
      const expired = today.body.decisions.find((d: any) => d.outcome === 'expired');
      expect(expired).to.include({ order_id: orders.pending.id, decided_by_client_id: null, decided_at: '2026-11-20T10:00:00.000Z' });
    });

    it('reports a quiet day before any policy with zeros and null policy version', async () => {
      at('2026-11-20T11:00:00.000Z');
      const quiet = await generate('2026-11-17');
      expect(quiet.status).to.equal(201);
      expect(withoutGeneratedAt(quiet.body)).to.deep.include({
        date: '2026-11-17',
        policy_version: null,
        ideas_generated: 0,
        orders: { created: 0, proposed: 0, filled: 0, rejected: 0, cancelled: 0, blocked: 0, expired: 0 },
        decisions: [],
        notional_traded: 0,
        start_value: 100_000,
        end_value: 100_000,
        pnl: 0,
        risk_gate_blocks: 0,
        kill_switch_events: [],
      });
    });

    it('returns 422 report-date-out-of-range for a date after today (UTC)', async () => {
      at('2026-11-20T23:59:59.000Z');
      const response = await generate('2026-11-21');
      expect(response.status).to.equal(422);
      expect(slug(response.body)).to.equal('report-date-out-of-range');
    });

    it('returns 400 for a date that is not YYYY-MM-DD', async () => {
      expect((await generate('19-11-2026')).status).to.equal(400);
    });

    it('returns 403 to a token without the write scope', async () => {
      const reader = await newHolder(['read']);
      const response = await generate('2026-11-19', reader.token);
      expect(response.status).to.equal(403);
    });
  });

  describe('GET /v1/reports/daily/{date}', () => {
    it('returns 404 not-found for a date never generated', async () => {
      const response = await server.api.get('/v1/reports/daily/2026-11-01', { token: holder.token });
      expect(response.status).to.equal(404);
      expect(slug(response.body)).to.equal('not-found');
    });

    it('returns 404 for another account’s report, which it cannot list either', async () => {
      const other = await newHolder(['read']);
      expect((await server.api.get('/v1/reports/daily/2026-11-19', { token: other.token })).status).to.equal(404);
      expect((await server.api.get('/v1/reports/daily', { token: other.token })).body).to.deep.equal({ data: [], next_cursor: null });
    });
  });

  describe('GET /v1/reports/daily', () => {
    before(async () => {
      at('2026-11-20T12:00:00.000Z');
      expect((await generate('2026-11-18')).status).to.equal(201);
    });
    const dates = (body: any) => body.data.map((r: any) => r.date);
    const list = (query = '') => server.api.get(`/v1/reports/daily${query}`, { token: holder.token });

    it('lists the generated reports newest date first', async () => {
      const response = await list();
      expect(response.status).to.equal(200);
      expect(dates(response.body)).to.deep.equal(['2026-11-20', '2026-11-19', '2026-11-18', '2026-11-17']);
      expect(response.body.next_cursor).to.equal(null);
    });

    it('pages with limit and next_cursor', async () => {
      const page1 = await list('?limit=3');
      expect(dates(page1.body)).to.deep.equal(['2026-11-20', '2026-11-19', '2026-11-18']);
      const page2 = await list(`?limit=3&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
      expect(dates(page2.body)).to.deep.equal(['2026-11-17']);
      expect(page2.body.next_cursor).to.equal(null);
    });

    it('filters by an inclusive date range, and pages within it', async () => {
      expect(dates((await list('?from=2026-11-18&to=2026-11-19')).body)).to.deep.equal(['2026-11-19', '2026-11-18']);
      expect(dates((await list('?from=2026-11-19')).body)).to.deep.equal(['2026-11-20', '2026-11-19']);
      const page1 = await list('?to=2026-11-19&limit=1');
      expect(dates(page1.body)).to.deep.equal(['2026-11-19']);
      const page2 = await list(`?to=2026-11-19&limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
      expect(dates(page2.body)).to.deep.equal(['2026-11-18', '2026-11-17']);
    });

    it('returns 422 report-date-out-of-range when from is after to, or a bound is in the future', async () => {
      for (const query of ['?from=2026-11-19&to=2026-11-18', '?to=2026-11-21', '?from=2026-12-01']) {
        const response = await list(query);
        expect(response.status, query).to.equal(422);
        expect(slug(response.body)).to.equal('report-date-out-of-range');
      }
    });

    it('returns 400 for a cursor it did not issue', async () => {
      expect((await list('?cursor=not-a-cursor')).status).to.equal(400);
    });
  });
});
