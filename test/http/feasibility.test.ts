import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';

/** Φ by Simpson integration of the density: independent of the service's rational approximation. */
function phi(x: number): number {
  if (x < -12) return 0;
  const a = -12;
  const n = 20000;
  const h = (x - a) / n;
  const f = (t: number) => Math.exp((-t * t) / 2) / Math.sqrt(2 * Math.PI);
  let sum = f(a) + f(x);
  for (let i = 1; i < n; i++) sum += f(a + i * h) * (i % 2 ? 4 : 2);
  return (sum * h) / 3;
}

function closedForm(capital: number, target: number, years: number, mu: number, sigma: number): number {
  const s2 = Math.log(1 + sigma ** 2 / (1 + mu) ** 2);
  const m = Math.log(1 + mu) - s2 / 2;
  return phi((Math.log(capital / target) + m * years) / Math.sqrt(s2 * years));
}

describe('POST /v1/goals/feasibility', () => {
  let server: TestServer;
  let token: string;
  const path = '/v1/goals/feasibility';

  before(async () => {
    server = await startTestServer();
    token = await server.token(['read']);
  });
  after(() => server.close());

  const evaluate = (body: Record<string, unknown>) => server.api.post(path, { token, json: body });

  it('matches the lognormal closed form to 1e-6 for assumptions the test states (the US defaults as README documents them)', async () => {
    for (const [goal, mu, sigma] of [
      // README and openapi.yaml document the US defaults: μ 0.1166, σ 0.1955.
      [{ capital: 10000, target: 25000, horizon_years: 10, market: 'US' }, 0.1166, 0.1955],
      [
        { capital: 50000, target: 60000, horizon_years: 3.5, market: 'DE', assumptions: { expected_return: 0.08, volatility: 0.19 } },
        0.08,
        0.19,
      ],
      [
        { capital: 1000, target: 1e6, horizon_years: 40, market: 'JP', assumptions: { expected_return: 0.07, volatility: 0.18 } },
        0.07,
        0.18,
      ],
    ] as const) {
      const response = await evaluate(goal);
      expect(response.status).to.equal(200);
      expect(response.body.assumptions).to.include({ model: 'lognormal', market: goal.market, expected_return: mu, volatility: sigma });
      expect(response.body.probability).to.be.closeTo(closedForm(goal.capital, goal.target, goal.horizon_years, mu, sigma), 1e-6);
      expect(response.body.required_growth_rate).to.be.closeTo((goal.target / goal.capital) ** (1 / goal.horizon_years) - 1, 1e-12);
    }
  });

  it('agrees over HTTP with the independent seeded simulations of test/fixtures (monthly contributions), within their sampling error', async () => {
    // scripts/reference/feasibility-mc.c: 400,000–1,000,000 paths a case; the service documents an accuracy of 0.0005.
    const reference = JSON.parse(readFileSync(new URL('../fixtures/feasibility-reference.json', import.meta.url), 'utf8')) as {
      capital: number;
      target: number;
      horizon_years: number;
      monthly_contribution: number;
      expected_return: number;
      volatility: number;
      probability: number;
      standard_error: number;
    }[];
    for (const c of reference.slice(0, 8)) {
      const goal = {
        capital: c.capital,
        target: c.target,
        horizon_years: c.horizon_years,
        monthly_contribution: c.monthly_contribution,
        market: 'US',
      };
      const response = await evaluate({ ...goal, assumptions: { expected_return: c.expected_return, volatility: c.volatility } });
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      expect(response.body.probability, JSON.stringify(c)).to.be.closeTo(c.probability, 0.0005 + 3 * c.standard_error + 5e-7);
    }
  });

  it('answers 400 validation-error pointing at /assumptions in a market that ships no default assumptions', async () => {
    const response = await evaluate({ capital: 10000, target: 20000, horizon_years: 12, market: 'JP' });
    expect(response.status).to.equal(400);
    expect(response.body.type).to.match(/\/problems\/validation-error$/);
    expect(response.body.errors).to.have.length(1);
    expect(response.body.errors[0].pointer).to.equal('/assumptions');
    expect(response.body.errors[0].detail).to.match(/required for market JP/);
    const own = await evaluate({
      capital: 10000,
      target: 20000,
      horizon_years: 12,
      market: 'JP',
      assumptions: { expected_return: 0.07, volatility: 0.18 },
    });
    expect(own.status).to.equal(200);
    expect(own.body.assumptions).to.include({ market: 'JP', source: 'request', basis: 'request' });
  });

  it('uses the caller’s assumptions when given, and says so', async () => {
    const response = await evaluate({
      capital: 10000,
      target: 20000,
      horizon_years: 12,
      market: 'US',
      assumptions: { expected_return: 0.05, volatility: 0.1 },
    });
    expect(response.body.assumptions).to.include({ expected_return: 0.05, volatility: 0.1, source: 'request' });
    expect(response.body.probability).to.be.closeTo(closedForm(10000, 20000, 12, 0.05, 0.1), 1e-6);
  });

  it('gives suggestions that, fed back in, reach the stated probabilities at the requested confidence', async () => {
    const goal = { capital: 20000, target: 100000, horizon_years: 15, market: 'US', monthly_contribution: 100, confidence: 0.9 };
    const { body } = await evaluate(goal);
    const byKind = Object.fromEntries(body.suggestions.map((s: any) => [s.kind, s]));
    expect(Object.keys(byKind)).to.have.members(['capital_needed', 'horizon_needed', 'target_reachable', 'monthly_contribution_needed']);
    const feedBack = [
      [{ ...goal, capital: byKind.capital_needed.capital }, byKind.capital_needed.probability],
      [{ ...goal, horizon_years: byKind.horizon_needed.horizon_years }, byKind.horizon_needed.probability],
      [{ ...goal, target: byKind.target_reachable.target }, byKind.target_reachable.probability],
      [
        { ...goal, monthly_contribution: byKind.monthly_contribution_needed.monthly_contribution },
        byKind.monthly_contribution_needed.probability,
      ],
    ] as const;
    for (const [input, stated] of feedBack) {
      expect(stated).to.be.at.least(0.9 - 1e-9);
      const again = await evaluate(input);
      expect(again.body.probability, JSON.stringify(input)).to.equal(stated);
    }
  });

  it('defines the edge cases: capital 0, target already met, zero volatility, drift that cannot get there', async () => {
    const zero = (await evaluate({ capital: 0, target: 1000, horizon_years: 5, market: 'US' })).body;
    expect(zero.required_growth_rate).to.equal(null);
    expect(zero.probability).to.equal(0);
    const met = (await evaluate({ capital: 2000, target: 1000, horizon_years: 5, market: 'US' })).body;
    expect(met.required_growth_rate).to.be.below(0);
    expect(met.suggestions.find((s: any) => s.kind === 'horizon_needed')).to.include({ attainable: true, horizon_years: 0 });
    const certain = (
      await evaluate({
        capital: 1000,
        target: 1500,
        horizon_years: 10,
        market: 'US',
        assumptions: { expected_return: 0.05, volatility: 0 },
      })
    ).body;
    expect(certain.probability).to.equal(1);
    const falling = (
      await evaluate({
        capital: 1000,
        target: 5000,
        horizon_years: 10,
        market: 'US',
        assumptions: { expected_return: -0.02, volatility: 0.2 },
      })
    ).body;
    expect(falling.suggestions.find((s: any) => s.kind === 'horizon_needed')).to.deep.include({ attainable: false, horizon_years: null });
    const extreme = await evaluate({
      capital: 1e12,
      target: 1e12,
      horizon_years: 100,
      market: 'US',
      monthly_contribution: 1e9,
      assumptions: { expected_return: 1, volatility: 2 },
    });
    expect(extreme.status).to.equal(200);
  });

  it('answers an unsupported market with 422 listing the supported ones', async () => {
    const response = await evaluate({ capital: 1, target: 2, horizon_years: 1, market: 'ZZ' });
    expect(response.status).to.equal(422);
    expect(response.body.type).to.equal(`${server.url}/problems/unsupported-market`);
    expect(response.body.supported_markets).to.include.members(['US', 'CA', 'GB', 'DE', 'JP', 'AU']);
  });

  it('refuses values beyond the documented bounds', async () => {
    const response = await evaluate({ capital: 1e13, target: 2, horizon_years: 1000, market: 'US', confidence: 1 });
    expect(response.status).to.equal(400);
    expect(response.body.errors.map((e: any) => e.pointer)).to.include.members(['/capital', '/horizon_years', '/confidence']);
  });

  it('requires the read scope', async () => {
    const response = await server.api.post(path, {
      token: await server.token(['trade']),
      json: { capital: 1, target: 2, horizon_years: 1, market: 'US' },
    });
    expect(response.status).to.equal(403);
  });

  it('answers every probability to 6 decimal places', async () => {
    const response = await evaluate({
      capital: 10_000,
      target: 123_457,
      horizon_years: 13.7,
      market: 'US',
      monthly_contribution: 333,
      confidence: 0.83,
    });
    expect(response.status).to.equal(200);
    const probabilities = [
      response.body.probability,
      ...response.body.suggestions.map((s: { probability: number | null }) => s.probability),
    ].filter((p) => p !== null);
    expect(probabilities.length).to.be.greaterThan(3);
    for (const p of probabilities) expect(p, String(p)).to.equal(Math.round(p * 1e6) / 1e6);
    expect(probabilities.some((p: number) => p > 0 && p < 1)).to.equal(true);
  });
  it('answers a volatility near 0 with contributions from the moments, as σ = 0 would (issue 20: σ 1e-9 was a 500 after 8.6 s)', async () => {
    const goal = { capital: 10000, target: 50000, horizon_years: 10, market: 'US', monthly_contribution: 200 };
    const deterministic = await evaluate({ ...goal, assumptions: { expected_return: 0.08, volatility: 0 } });
    for (const volatility of [1e-9, 5.960464477539063e-8, 1e-6, 1e-5]) {
      const response = await evaluate({ ...goal, assumptions: { expected_return: 0.08, volatility } });
      expect(response.status, `σ ${volatility}`).to.equal(200);
      expect(response.body.assumptions).to.include({ method: 'moment_matched', method_accuracy: 0.0005 });
      // The horizon needed is the deterministic wealth's to within the model's spread: the same 0.01 year.
      expect(response.body.suggestions[1].horizon_years).to.equal(deterministic.body.suggestions[1].horizon_years);
      expect(response.body.suggestions[0].capital).to.be.closeTo(deterministic.body.suggestions[0].capital, 1);
    }
  });

  it('answers the extremes of every field of the accepted domain, each suggestion a number or an honest null', async () => {
    const statuses = new Map<number, number>();
    for (const capital of [0, 0.01, 1e12])
      for (const horizon_years of [1 / 365.25, 100])
        for (const monthly_contribution of [0, 0.01, 1e9]) {
          for (const [expected_return, volatility] of [
            [-0.5, 2],
            [1, 1e-9],
            [1, 2],
            [-0.5, 0],
          ]) {
            const response = await evaluate({
              capital,
              target: 1e12,
              horizon_years,
              market: 'US',
              monthly_contribution,
              confidence: 0.99,
              assumptions: { expected_return, volatility },
            });
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            expect(response.status, JSON.stringify({ capital, horizon_years, monthly_contribution, expected_return, volatility })).to.equal(
              200,
            );
            for (const suggestion of response.body.suggestions)
              expect(suggestion.probability === null || (suggestion.probability >= 0 && suggestion.probability <= 1)).to.equal(true);
          }
        }
    expect(statuses.get(200)).to.equal(72);
  });
});
