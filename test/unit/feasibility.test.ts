import { expect } from 'chai';
import { InvalidInputError, UnsupportedMarketError } from '../../src/services/errors.js';
import { evaluateFeasibility, type FeasibilityInput } from '../../src/services/feasibility.js';
import { getMarket, MARKETS, supportedMarkets } from '../../src/services/markets.js';
import { normalCdf, normalQuantile } from '../../src/feasibility/math/normal.js';
import { closedForm, expectAllFinite, monteCarlo } from '../support/feasibility.js';

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

  describe('edge cases', () => {
    it('answers capital 0 without contributions: no growth rate, probability 0, nothing reachable, no horizon', () => {
      const result = evaluateFeasibility({ ...base, capital: 0 });
      expect(result.required_growth_rate).to.equal(null);
      expect(result.probability).to.equal(0);
      const [capital, horizon, target, contribution] = result.suggestions;
      expect(capital.capital).to.equal(evaluateFeasibility(base).suggestions[0].capital);
      expect(horizon).to.deep.include({ kind: 'horizon_needed', attainable: false, horizon_years: null, probability: null });
      expect(horizon.reason).to.match(/capital or contributions/);
      expect(target).to.deep.include({ kind: 'target_reachable', target: 0.01, probability: 0, attainable: false });
      expect(target.reason).to.match(/smallest positive target/);
      expect(contribution!.monthly_contribution).to.be.greaterThan(0);
      expect(contribution!.probability).to.be.at.least(0.8);
    });

    it('answers capital 0 with contributions with a finite probability and an attainable horizon', () => {
      const result = evaluateFeasibility({ ...base, capital: 0, monthly_contribution: 100 });
      // 100 a month for 10 years toward 20 000 at the US defaults, against a seeded Monte Carlo of the test's own.
      const paths = 100_000;
      const reference = monteCarlo(
        { ...base, capital: 0, monthly_contribution: 100, assumptions: { expected_return: 0.1166, volatility: 0.1955 } },
        paths,
        11,
      );
      expect(result.probability).to.be.closeTo(reference, 0.0005 + 4 * Math.sqrt((reference * (1 - reference)) / paths));
      expect(result.suggestions[1].attainable).to.equal(true);
    });

    it('suggests capital 0 when contributions alone reach the confidence', () => {
      const [capital] = evaluateFeasibility({ ...base, monthly_contribution: 1_000 }).suggestions;
      expect(capital).to.deep.include({ capital: 0 });
      expect(capital.probability).to.be.at.least(0.8);
    });

    it('answers horizon 0 with probability 1 when the target is at or below the capital', () => {
      const result = evaluateFeasibility({ ...base, target: 10_000 });
      expect(result.required_growth_rate).to.equal(0);
      expect(result.suggestions[1]).to.deep.equal({
        kind: 'horizon_needed',
        attainable: true,
        reason: null,
        horizon_years: 0,
        probability: 1,
      });
    });

    it('answers an unattainable horizon when the log drift is not positive or more than 100 years are needed', () => {
      const falling = evaluateFeasibility({ ...base, assumptions: { expected_return: 0.01, volatility: 0.3 } });
      expect(falling.suggestions[1].attainable).to.equal(false);
      const slow = evaluateFeasibility({ ...base, target: 1e12, capital: 1 });
      expect(slow.suggestions[1]).to.deep.include({ attainable: false, horizon_years: null, probability: null });
    });

    it('returns the contribution cap with its probability when even the cap cannot reach the confidence', () => {
      const input = { ...base, capital: 1, target: 1e12, horizon_years: 0.5 };
      const [, , , contribution] = evaluateFeasibility(input).suggestions;
      expect(contribution!.monthly_contribution).to.equal(1e9);
      expect(contribution!.probability).to.equal(evaluateFeasibility({ ...input, monthly_contribution: 1e9 }).probability);
      expect(contribution!.probability).to.be.below(0.8);
      expect(contribution).to.deep.include({ attainable: false });
      expect(contribution!.reason).to.match(/maximum \(1000000000\)/);
    });

    it("marks every suggestion unattainable, within the request's bounds, when none reaches the confidence (the issue's case)", () => {
      const input: FeasibilityInput = {
        capital: 0,
        target: 1e12,
        horizon_years: 100,
        monthly_contribution: 1e9,
        confidence: 0.99,
        market: 'US',
        assumptions: { expected_return: -0.5, volatility: 2 },
      };
      const [capital, horizon, target, contribution] = evaluateFeasibility(input).suggestions;
      expect(capital).to.deep.include({ capital: 1e12, attainable: false });
      expect(capital.probability).to.be.below(0.99);
      expect(capital.reason).to.be.a('string');
      expect(horizon).to.deep.include({ attainable: false, horizon_years: null });
      expect(contribution).to.deep.include({ monthly_contribution: 1e9, attainable: false });
      expect(contribution!.probability).to.be.below(0.99);
      expect(target.attainable).to.equal(target.probability >= 0.99);
    });

    it("never suggests capital above the request's maximum (1e12) and marks it unattainable there", () => {
      const input: FeasibilityInput = {
        ...base,
        capital: 1,
        target: 1e12,
        horizon_years: 1,
        assumptions: { expected_return: -0.5, volatility: 2 },
      };
      const [capital] = evaluateFeasibility(input).suggestions;
      expect(capital).to.deep.include({ capital: 1e12, attainable: false });
      expect(capital.probability).to.equal(evaluateFeasibility({ ...input, capital: 1e12 }).probability);
      const withContribution = evaluateFeasibility({ ...input, monthly_contribution: 10 }).suggestions[0];
      expect(withContribution).to.deep.include({ capital: 1e12, attainable: false });
    });

    it('marks reached suggestions attainable with no reason', () => {
      for (const s of evaluateFeasibility({ ...base, monthly_contribution: 100 }).suggestions) {
        expect(s, s.kind).to.deep.include({ attainable: true, reason: null });
        expect(s.probability!, s.kind).to.be.at.least(0.8);
      }
    });

    it('searches the horizon with contributions even when the log drift is not positive', () => {
      const assumptions = { expected_return: -0.02, volatility: 0.1 };
      const [, horizon] = evaluateFeasibility({
        ...base,
        capital: 1_000,
        target: 20_000,
        monthly_contribution: 500,
        assumptions,
      }).suggestions;
      expect(horizon).to.deep.include({ attainable: true, reason: null });
      expect(horizon.probability!).to.be.at.least(0.8);
      const none = evaluateFeasibility({ ...base, capital: 1_000, target: 20_000, assumptions }).suggestions[1];
      expect(none).to.deep.include({ attainable: false, horizon_years: null });
      expect(none.reason).to.match(/log drift/);
    });

    it('suggests exactly 18,000 of capital where 18,000 already gives probability 1 (σ = 0, μ = 0)', () => {
      const input: FeasibilityInput = {
        capital: 10_000,
        target: 30_000,
        horizon_years: 10,
        monthly_contribution: 100,
        market: 'US',
        assumptions: { expected_return: 0, volatility: 0 },
      };
      const [capital] = evaluateFeasibility(input).suggestions;
      expect(capital).to.deep.include({ capital: 18_000, probability: 1, attainable: true });
      expect(evaluateFeasibility({ ...input, capital: 17_999.99 }).probability).to.equal(0);
    });

    it('leaves out the contribution suggestion when the horizon holds no whole month', () => {
      expect(evaluateFeasibility({ ...base, horizon_years: 0.05 }).suggestions.map((s) => s.kind)).to.not.include(
        'monthly_contribution_needed',
      );
      expect(evaluateFeasibility({ ...base, horizon_years: 1 / 12 }).suggestions.map((s) => s.kind)).to.include(
        'monthly_contribution_needed',
      );
    });

    it('is deterministic at zero volatility, counting an exactly reached target as reached', () => {
      const assumptions = { expected_return: 0.05, volatility: 0 };
      const reached = 1_000 * 1.05 ** 10;
      expect(evaluateFeasibility({ ...base, capital: 1_000, target: reached, assumptions }).probability).to.equal(1);
      expect(evaluateFeasibility({ ...base, capital: 1_000, target: reached * (1 + 1e-9), assumptions }).probability).to.equal(0);
      const withContribution = evaluateFeasibility({ ...base, capital: 1_000, target: 2_000, monthly_contribution: 10, assumptions });
      expect(withContribution.probability).to.equal(1);
    });

    it('handles 100-year and 0.01-year horizons', () => {
      for (const horizon_years of [0.01, 100]) {
        for (const monthly_contribution of [0, 500]) {
          const result = evaluateFeasibility({ ...base, horizon_years, monthly_contribution });
          expectAllFinite(result);
          expect(result.probability).to.be.within(0, 1);
        }
      }
      expect(evaluateFeasibility({ ...base, horizon_years: 100 }).probability).to.be.greaterThan(0.99);
    });

    it('returns finite numbers for every combination of extreme values at the bounds', () => {
      const overrides = [
        undefined,
        { expected_return: -0.5, volatility: 0 },
        { expected_return: -0.5, volatility: 2 },
        { expected_return: 1, volatility: 2 },
        { expected_return: 1, volatility: 0 },
      ];
      for (const capital of [0, 0.01, 1e12])
        for (const target of [0.01, 1e12])
          for (const horizon_years of [0.01, 100])
            for (const monthly_contribution of [0, 1e9])
              for (const assumptions of overrides)
                for (const confidence of [0.5, 0.99]) {
                  const input: FeasibilityInput = {
                    capital,
                    target,
                    horizon_years,
                    market: assumptions ? 'JP' : 'US',
                    monthly_contribution,
                    confidence,
                  };
                  if (assumptions) input.assumptions = assumptions;
                  const result = evaluateFeasibility(input);
                  expectAllFinite(result);
                  expect(result.probability, JSON.stringify(input)).to.be.within(0, 1);
                }
    });

    it('reports the growth rate required, null only for capital 0, the largest double when it overflows', () => {
      expect(evaluateFeasibility(base).required_growth_rate).to.be.closeTo(2 ** 0.1 - 1, 1e-12);
      expect(evaluateFeasibility({ ...base, capital: 0.01, target: 1e12, horizon_years: 0.01 }).required_growth_rate).to.equal(
        Number.MAX_VALUE,
      );
      expect(evaluateFeasibility({ ...base, capital: 0 }).required_growth_rate).to.equal(null);
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
