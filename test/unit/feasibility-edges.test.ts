import { expect } from 'chai';
import { evaluateFeasibility, type FeasibilityInput } from '../../src/services/feasibility.js';
import { expectAllFinite, monteCarlo } from '../support/feasibility.js';

const base: FeasibilityInput = { capital: 10_000, target: 20_000, horizon_years: 10, market: 'US' };

describe('goal feasibility', () => {
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
});
