import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { evaluateFeasibility } from '../../src/services/feasibility.js';
import { MARKETS, US_DAMODARAN } from '../../src/services/markets.js';

/** The shipped annual S&P 500 total returns (percent), by year. */
function shippedReturns(): Map<number, number> {
  const [header, ...lines] = readFileSync(new URL(`../../${US_DAMODARAN.file}`, import.meta.url), 'utf8')
    .trim()
    .split('\n');
  expect(header).to.equal('year,sp500_total_return_pct');
  return new Map(
    lines.map((line) => {
      const [year, pct] = line.split(',');
      return [Number(year), Number(pct)];
    }),
  );
}

describe('market assumptions reproducible from shipped data', () => {
  it('ships every year 1928–2023 once, as numbers', () => {
    const returns = shippedReturns();
    expect([...returns.keys()]).to.deep.equal(Array.from({ length: 96 }, (_, i) => 1928 + i));
    for (const pct of returns.values()) expect(Number.isFinite(pct)).to.equal(true);
  });

  it('recomputes the US mean (≈ 11.7 %) and sample standard deviation (≈ 19.6 %) that markets.ts uses', () => {
    const r = [...shippedReturns().values()].map((pct) => pct / 100);
    const mean = r.reduce((a, b) => a + b, 0) / r.length;
    const sd = Math.sqrt(r.reduce((a, b) => a + (b - mean) ** 2, 0) / (r.length - 1));
    expect(mean).to.be.within(0.1165, 0.1175);
    expect(sd).to.be.within(0.195, 0.197);
    // markets.ts holds them rounded to 4 decimals.
    const us = MARKETS.US!.assumptions!;
    expect(us.expected_return).to.equal(Number(mean.toFixed(4)));
    expect(us.volatility).to.equal(Number(sd.toFixed(4)));
    expect(us).to.include({ basis: 'historical', period: '1928–2023', file: US_DAMODARAN.file });
    expect(us.reference).to.include('Damodaran').and.include(US_DAMODARAN.file);
  });

  it('ships default assumptions only where a data set recomputes them', () => {
    for (const market of Object.values(MARKETS)) {
      if (market.assumptions) expect(market.assumptions.file, market.code).to.equal(US_DAMODARAN.file);
    }
  });

  it('says in the response which basis and period the assumptions have', () => {
    const input = { capital: 10_000, target: 20_000, horizon_years: 10, market: 'US' };
    expect(evaluateFeasibility(input).assumptions).to.deep.include({
      expected_return: 0.1166,
      volatility: 0.1955,
      basis: 'historical',
      period: '1928–2023',
      source: 'market',
    });
    const own = evaluateFeasibility({ ...input, assumptions: { expected_return: 0.05, volatility: 0.1 } }).assumptions;
    expect(own).to.deep.include({ basis: 'request', period: null, source: 'request' });
    expect(() => evaluateFeasibility({ ...input, market: 'JP' })).to.throw(/assumptions/);
  });
});
