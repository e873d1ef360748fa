import { expect } from 'chai';
import { InvalidInputError, UnsupportedMarketError } from '../../src/services/errors.js';
import { evaluateFeasibility, type FeasibilityInput } from '../../src/services/feasibility.js';
import { getMarket, MARKETS, supportedMarkets } from '../../src/services/markets.js';
import { normalCdf, normalQuantile } from '../../src/feasibility/math/normal.js';
import { closedForm } from '../support/feasibility.js';

const base: FeasibilityInput = { capital: 10_000, target: 20_000, horizon_years: 10, market: 'US' };

describe('goal feasibility', () => {
  describe('closed form without contributions', () => {
    const cases: Array<[FeasibilityInput, number, number]> = [
      [base, 0.1166, 0.1955],
      [
        {
          capital: 1_000_000,
          target: 5_000_000,
          horizon_years: 30,
          market: 'JP',
          assumptions: { expected_return: 0.07, volatility: 0.18 },
        },
        0.07,
        0.18,
      ],
      [{ capital: 50_000, target: 45_000, horizon_years: 1, market: 'US' }, 0.1166, 0.1955],
      [
        { capital: 1_000, target: 900_000, horizon_years: 100, market: 'GB', assumptions: { expected_return: 0.03, volatility: 0.3 } },
        0.03,
        0.3,
      ],
      [
        { capital: 100, target: 101, horizon_years: 0.01, market: 'AU', assumptions: { expected_return: 0.09, volatility: 0.15 } },
        0.09,
        0.15,
      ],
      [{ capital: 1e12, target: 1, horizon_years: 5, market: 'CA', assumptions: { expected_return: -0.5, volatility: 2 } }, -0.5, 2],
    ];
    for (const [input, mu, sigma] of cases) {
      it(`matches an independent computation to 1e-6 (${input.market} ${input.capital} → ${input.target} in ${input.horizon_years} y)`, () => {
        const expected = closedForm(input.capital, input.target, input.horizon_years, mu, sigma);
        expect(evaluateFeasibility(input).probability).to.be.closeTo(expected, 1e-6);
      });
    }

    it('uses the closed form when the monthly contribution is 0', () => {
      expect(evaluateFeasibility({ ...base, monthly_contribution: 0 }).probability).to.equal(evaluateFeasibility(base).probability);
      const tiny = evaluateFeasibility({ ...base, monthly_contribution: 1e-9 }).probability;
      expect(tiny).to.be.closeTo(evaluateFeasibility(base).probability, 1e-9);
    });

    it('has an inverse normal that Φ maps back to the confidence', () => {
      for (const q of [0.5, 0.6, 0.8, 0.9, 0.95, 0.975, 0.99]) expect(normalCdf(normalQuantile(q))).to.be.closeTo(q, 1e-15);
      expect(normalQuantile(0.8)).to.be.closeTo(0.8416212335729143, 1e-14);
    });
  });

  describe('suggestions fed back as input reproduce their probability', () => {
    const inputs: FeasibilityInput[] = [
      base,
      { ...base, confidence: 0.99 },
      { ...base, confidence: 0.5, market: 'DE', assumptions: { expected_return: 0.08, volatility: 0.19 } },
      { capital: 25_000, target: 300_000, horizon_years: 20, market: 'US', monthly_contribution: 400 },
      {
        capital: 0,
        target: 50_000,
        horizon_years: 8.37,
        market: 'GB',
        monthly_contribution: 250,
        confidence: 0.9,
        assumptions: { expected_return: 0.08, volatility: 0.15 },
      },
      {
        capital: 2_000_000,
        target: 9_000_000,
        horizon_years: 15,
        market: 'JP',
        monthly_contribution: 30_000,
        assumptions: { expected_return: 0.07, volatility: 0.18 },
      },
      { capital: 1_000, target: 2_000, horizon_years: 10, market: 'CA', assumptions: { expected_return: 0.05, volatility: 0 } },
      {
        capital: 5_000,
        target: 6_000,
        horizon_years: 3,
        market: 'AU',
        monthly_contribution: 10,
        confidence: 0.95,
        assumptions: { expected_return: 0.09, volatility: 0.15 },
      },
      // On the log grid (s²T 3.0 and 6.4): capital and contributions refined from the conditional lognormal's answer.
      {
        capital: 20_000,
        target: 1_000_000,
        horizon_years: 40,
        market: 'US',
        monthly_contribution: 500,
        assumptions: { expected_return: 0.08, volatility: 0.3 },
      },
      {
        capital: 0,
        target: 1_000_000,
        horizon_years: 50,
        market: 'US',
        monthly_contribution: 1_000,
        confidence: 0.9,
        assumptions: { expected_return: -0.05, volatility: 0.35 },
      },
    ];
    for (const input of inputs) {
      it(`at or above the confidence (${JSON.stringify(input)})`, () => {
        const result = evaluateFeasibility(input);
        const q = result.confidence;
        const [capital, horizon, target, contribution] = result.suggestions;

        const withCapital = evaluateFeasibility({ ...input, capital: capital.capital });
        expect(withCapital.probability).to.equal(capital.probability);
        expect(capital.probability).to.be.at.least(q - 1e-9);

        if (horizon.attainable && horizon.horizon_years! > 0) {
          const withHorizon = evaluateFeasibility({ ...input, horizon_years: horizon.horizon_years! });
          expect(withHorizon.probability).to.equal(horizon.probability);
          expect(horizon.probability).to.be.at.least(q - 1e-9);
          expect(Math.round(horizon.horizon_years! * 100) / 100).to.equal(horizon.horizon_years);
        }

        expect(target.target).to.be.greaterThan(0);
        const withTarget = evaluateFeasibility({ ...input, target: target.target });
        expect(withTarget.probability).to.equal(target.probability);
        expect(target.probability).to.be.at.least(q - 1e-9);

        const withContribution = evaluateFeasibility({ ...input, monthly_contribution: contribution!.monthly_contribution });
        expect(withContribution.probability).to.equal(contribution!.probability);
        expect(contribution!.probability).to.be.at.least(q - 1e-9);
      });
    }

    it('the horizon needed is the first reaching the confidence: 0.01 year less, and earlier horizons, miss it', () => {
      let checked = 0;
      for (const input of inputs) {
        const result = evaluateFeasibility(input);
        const horizon = result.suggestions[1];
        if (!horizon.attainable || !(horizon.horizon_years! > 0.01)) continue;
        const h = horizon.horizon_years!;
        const earlier = [h - 0.01, ...Array.from({ length: 10 }, (_, i) => Math.round(h * (i + 0.5) * 10) / 100)].filter(
          (y) => y >= 0.01 && y < h,
        );
        for (const years of earlier) {
          const probability = evaluateFeasibility({ ...input, horizon_years: Number(years.toFixed(2)) }).probability;
          expect(probability, `${JSON.stringify(input)} at ${years.toFixed(2)} y (answer ${h})`).to.be.below(result.confidence);
          checked++;
        }
      }
      expect(checked).to.be.above(30);
    });

    it('rounds capital and contribution up and the target down to the currency minor unit', () => {
      const [capital, , target, contribution] = evaluateFeasibility({
        ...base,
        assumptions: { expected_return: 0.1, volatility: 0.16 },
      }).suggestions;
      expect(capital.capital).to.equal(12_583.75); // 20000·exp(−10m + z·s·√10) = 12583.7488…
      expect(target.target).to.equal(15_893.51); // 10000·exp(10m − z·s·√10) = 15893.5149…
      expect(Math.round(contribution!.monthly_contribution * 100)).to.be.closeTo(contribution!.monthly_contribution * 100, 1e-6);
      const yen = evaluateFeasibility({
        ...base,
        market: 'JP',
        capital: 1_000_000,
        target: 2_000_000,
        assumptions: { expected_return: 0.07, volatility: 0.18 },
      }).suggestions;
      expect(
        Number.isInteger(yen[0].capital) && Number.isInteger(yen[2].target) && Number.isInteger(yen[3]!.monthly_contribution),
      ).to.equal(true);
    });
  });

  describe('markets and assumptions', () => {
    it('asks for the caller’s assumptions in the markets that ship none (every market but US), naming the field', () => {
      for (const market of ['CA', 'GB', 'DE', 'JP', 'AU']) {
        expect(MARKETS[market]!.assumptions, market).to.equal(null);
        expect(() => evaluateFeasibility({ ...base, market }))
          .to.throw(InvalidInputError)
          .that.satisfies(
            (error: InvalidInputError) =>
              error.fields.length === 1 &&
              error.fields[0]!.field === 'assumptions' &&
              /required for market .*only for US/.test(error.fields[0]!.detail),
          );
        const own = evaluateFeasibility({ ...base, market, assumptions: { expected_return: 0.07, volatility: 0.18 } });
        expect(own.assumptions).to.deep.include({
          market,
          expected_return: 0.07,
          volatility: 0.18,
          source: 'request',
          basis: 'request',
          period: null,
          reference: 'supplied by the caller',
        });
      }
    });

    it('throws UnsupportedMarketError listing the supported markets', () => {
      expect(() => evaluateFeasibility({ ...base, market: 'FR' }))
        .to.throw(UnsupportedMarketError)
        .that.deep.includes({
          markets: ['FR'],
          supported: ['US', 'CA', 'GB', 'DE', 'JP', 'AU'],
        });
      expect(supportedMarkets()).to.deep.equal(Object.keys(MARKETS));
      expect(getMarket('toString')).to.equal(undefined);
    });

    it('echoes the market assumptions or the caller’s, with their source and reference', () => {
      const fromMarket = evaluateFeasibility({ ...base, market: 'US' });
      expect(fromMarket.currency).to.equal('USD');
      expect(fromMarket.confidence).to.equal(0.8);
      expect(fromMarket.assumptions).to.deep.equal({
        market: 'US',
        expected_return: 0.1166,
        volatility: 0.1955,
        model: 'lognormal',
        method: 'closed_form',
        method_accuracy: 1e-6,
        source: 'market',
        reference: MARKETS.US!.assumptions!.reference,
        basis: 'historical',
        period: '1928–2023',
      });
      const fromRequest = evaluateFeasibility({ ...base, confidence: 0.9, assumptions: { expected_return: 0.06, volatility: 0.12 } });
      expect(fromRequest.confidence).to.equal(0.9);
      expect(fromRequest.assumptions).to.deep.include({
        expected_return: 0.06,
        volatility: 0.12,
        source: 'request',
        reference: 'supplied by the caller',
      });
      expect(fromRequest.suggestions.map((s) => s.kind)).to.deep.equal([
        'capital_needed',
        'horizon_needed',
        'target_reachable',
        'monthly_contribution_needed',
      ]);
    });
  });
});
