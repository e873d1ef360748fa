import { expect } from 'chai';
import { evaluateFeasibility, type FeasibilityInput, type FeasibilityResult } from '../../src/services/feasibility.js';
import { ContributionLaw } from '../../src/feasibility/laws/conditional-lognormal.js';
import { GridReach } from '../../src/feasibility/laws/log-grid-reach.js';
import { GridWealth } from '../../src/feasibility/laws/log-grid.js';
import { MAX_NODES } from '../../src/feasibility/laws/log-grid-nodes.js';
import { WealthMoments } from '../../src/feasibility/laws/moments.js';

describe('goal feasibility with monthly contributions', () => {
  describe('monthly contributions (conditional lognormal up to s²T = 1, log-grid convolution beyond)', () => {
    it('uses the moments up to s²T = 0.01, the conditional lognormal up to 1 and the log grid beyond, all documented to 0.0005; the closed form 1e-6', () => {
      const input: FeasibilityInput = {
        capital: 0,
        target: 1e6,
        horizon_years: 30,
        market: 'US',
        monthly_contribution: 1000,
        assumptions: { expected_return: 0.118, volatility: 0.196 },
      }; // s²T = 0.87
      expect(evaluateFeasibility(input).assumptions).to.deep.include({ method: 'conditional_lognormal', method_accuracy: 0.0005 });
      const narrow = { ...input, assumptions: { expected_return: 0.118, volatility: 0.018 } }; // s²T = 0.0078
      expect(evaluateFeasibility(narrow).assumptions).to.deep.include({ method: 'moment_matched', method_accuracy: 0.0005 });
      const wide = { ...input, horizon_years: 40, assumptions: { expected_return: 0, volatility: 0.35 } }; // s²T = 4.6
      expect(evaluateFeasibility(wide).assumptions).to.deep.include({ method: 'log_grid_convolution', method_accuracy: 0.0005 });
      expect(evaluateFeasibility({ ...input, monthly_contribution: 0, capital: 1 }).assumptions).to.deep.include({
        method: 'closed_form',
        method_accuracy: 1e-6,
      });
    });

    it(
      'matches a fine log grid with the conditional lognormal within 0.0005 wherever s²T ≤ 1, ' +
        'and the log grid with that finer one within 0.00005 beyond',
      () => {
        const worst = { conditional: 0, grid: 0 };
        for (const years of [1, 5, 12.25, 30, 50]) {
          for (const volatility of [0.05, 0.15, 0.25, 0.35]) {
            for (const expected_return of [-0.05, 0.15]) {
              for (const capital of [0, 10_000]) {
                const s2 = Math.log1p((volatility / (1 + expected_return)) ** 2);
                const m = Math.log1p(expected_return) - s2 / 2;
                const months = Math.floor(12 * years);
                const fraction = years - months / 12;
                const coarse = GridWealth.after(months, { m, s2 }, capital / 1000);
                // 4 points per monthly sd: the reference for both (at 1 year the service's grid holds a narrow law on few points).
                const fine = years < 50 || s2 * years <= 1 ? GridWealth.after(months, { m, s2 }, capital / 1000, 4) : undefined;
                const law = new ContributionLaw(months, fraction, { m, s2 });
                let median = capital * Math.exp(m * years);
                for (let u = 0; u < months; u++) median += 1000 * Math.exp((m * u) / 12 + m * fraction);
                for (const factor of [0.25, 0.55, 1, 1.6, 3]) {
                  const target = median * factor;
                  const onGrid = coarse.exceeds(target / 1000, fraction);
                  if (s2 * years <= 1)
                    worst.conditional = Math.max(
                      worst.conditional,
                      Math.abs(law.probability(capital, 1000, target) - fine!.exceeds(target / 1000, fraction)),
                    );
                  else if (fine) worst.grid = Math.max(worst.grid, Math.abs(fine.exceeds(target / 1000, fraction) - onGrid));
                }
              }
            }
          }
        }
        expect(worst.conditional).to.be.above(0).and.below(0.0005);
        expect(worst.grid).to.be.above(0).and.below(0.00005);
      },
    );

    it('matches a fine log grid with the moment-matched law within 0.0001 wherever s²T ≤ 0.01, over μ −0.5 to 1 and start ratios to 10,000', () => {
      let worst = 0;
      for (const variance of [0.01, 0.003, 0.001]) {
        for (const years of [1, 5, 20, 50]) {
          for (const expected_return of [-0.5, 0.05, 1]) {
            for (const ratio of [0, 30, 10_000]) {
              const s2 = variance / years;
              const m = Math.log1p(expected_return) - s2 / 2;
              const months = 12 * years;
              const grid = GridWealth.after(months, { m, s2 }, ratio, 3);
              const moments = new WealthMoments(ratio, 1, { m, s2 });
              moments.advanceTo(months);
              let median = ratio * Math.exp(m * years);
              for (let u = 0; u < months; u++) median += Math.exp((m * u) / 12);
              for (const spread of [-2, -1, -0.3, 0, 0.3, 1, 2]) {
                const target = median * Math.exp(spread * Math.sqrt(variance));
                worst = Math.max(worst, Math.abs(moments.exceeds(target, 0) - grid.exceeds(target)));
              }
            }
          }
        }
      }
      expect(worst).to.be.above(0).and.below(0.0001);
    });

    it('tends to the deterministic wealth as σ → 0: at σ = 1e-9 every suggestion is within a unit of σ = 0’s', () => {
      const input: FeasibilityInput = {
        capital: 10_000,
        target: 50_000,
        horizon_years: 10,
        market: 'US',
        monthly_contribution: 200,
        assumptions: { expected_return: 0.08, volatility: 0 },
      };
      const exact = evaluateFeasibility(input);
      const narrow = evaluateFeasibility({ ...input, assumptions: { expected_return: 0.08, volatility: 1e-9 } });
      expect(narrow.assumptions.method).to.equal('moment_matched');
      expect(narrow.probability).to.equal(exact.probability);
      const values = (r: FeasibilityResult) =>
        r.suggestions.map(
          (s) =>
            ('capital' in s
              ? s.capital
              : 'target' in s
                ? s.target
                : 'horizon_years' in s
                  ? s.horizon_years
                  : s.monthly_contribution) as number,
        );
      values(narrow).forEach((value, i) => expect(value).to.be.closeTo(values(exact)[i]!, 0.010001));
    });

    it('keeps a log grid within its node bound and the WebAssembly memory within its bound for the widest accepted laws', () => {
      for (const [expected_return, volatility, ratio] of [
        [1, 2, 1e14],
        [-0.5, 2, 0],
        [1, 0.0012, 1e14],
        [0, 0.05, 1e14],
      ] as const) {
        const s2 = Math.log1p((volatility / (1 + expected_return)) ** 2);
        const law = new GridWealth({ m: Math.log1p(expected_return) - s2 / 2, s2 }, ratio, 1200);
        law.advanceTo(24);
        expect(law.bytes).to.be.below(MAX_NODES * 80);
      }
      expect(() => new GridWealth({ m: 0, s2: 1e-30 }, 1, 1200)).not.to.throw();
    });

    it('runs the log grid backward to within 0.005 of the forward grid from every start ratio, with and without a leftover fraction', () => {
      let worst = 0;
      for (const [volatility, expected_return, years, level] of [
        [2, 0.53, 96, 1e4],
        [1.2, 0.08, 71, 30],
        [0.35, 0.1, 40, 500],
        [0.9, -0.3, 20, 100],
        [2, -0.5, 100, 1e3],
      ] as const) {
        const s2 = Math.log1p((volatility / (1 + expected_return)) ** 2);
        const model = { m: Math.log1p(expected_return) - s2 / 2, s2 };
        for (const fraction of [0, 0.003, 0.04]) {
          const back = new GridReach(model, 12 * years, level, fraction, 1e6);
          for (const ratio of [0, 0.1, 3, 100, 1e4, 1e6]) {
            worst = Math.max(worst, Math.abs(back.reach(ratio) - GridWealth.after(12 * years, model, ratio).exceeds(level, fraction)));
          }
        }
      }
      expect(worst).to.be.above(0).and.below(0.005);
    });

    it('counts wealth exactly at the target as reaching it where the grid holds a point mass', () => {
      const model = { m: 0.05, s2: 0.04 };
      // Without capital, after one month W = c exactly; before any month W = C.
      expect(GridWealth.after(1, model, 0).exceeds(1)).to.equal(1);
      expect(GridWealth.after(1, model, 0).exceeds(1.000001)).to.equal(0);
      expect(GridWealth.after(0, model, 2).exceeds(2)).to.equal(1);
      expect(GridWealth.after(0, model, 2).exceeds(2.000001)).to.equal(0);
    });

    it('steps grids in the one WebAssembly memory as if each were alone: interleaved, after the memory grows, snapshots frozen', () => {
      const levels = [0.6, 1, 1.5, 3];
      const read = (law: GridWealth, months: number) => levels.map((level) => law.exceeds(level * months, 0.05));
      const small = { m: 0.05, s2: 0.03 };
      // σ = 2 with a large drift: the largest grid of the domain, several times the memory the first one needs.
      const large = { m: 0.6, s2: Math.log1p(4 / 4) };
      const alone = { small: GridWealth.after(240, small, 3), large: GridWealth.after(240, large, 0) };
      const a = new GridWealth(small, 3, 1200);
      const b = new GridWealth(large, 0, 1200);
      let frozen: { law: GridWealth; values: number[] } | undefined;
      for (let month = 1; month <= 240; month++) {
        a.advanceTo(month);
        b.advanceTo(month);
        if (month === 120) frozen = { law: a.snapshot(), values: read(a, 120) };
      }
      expect(read(a, 240)).to.deep.equal(read(alone.small, 240));
      expect(read(b, 240)).to.deep.equal(read(alone.large, 240));
      expect(read(frozen!.law, 120)).to.deep.equal(frozen!.values);
      // A snapshot shares its grid's fixed arrays; stepping it on does not move the grid it came from.
      const before = read(a, 240);
      frozen!.law.advanceTo(240);
      expect(read(frozen!.law, 240)).to.deep.equal(before);
      expect(read(a, 240)).to.deep.equal(before);
      expect(before.every((p) => p > 0 && p < 1)).to.equal(true);
    });

    it('holds the log grid within 0.0002 of a much finer one at volatilities 0.6–2, where its step is capped at 0.24', () => {
      let worst = 0;
      for (const years of [1, 3, 8])
        for (const volatility of [0.6, 1, 2])
          for (const expected_return of [-0.5, 0.5])
            for (const ratio of [0, 10]) {
              const s2 = Math.log1p((volatility / (1 + expected_return)) ** 2);
              const m = Math.log1p(expected_return) - s2 / 2;
              if (s2 * years <= 1) continue; // the conditional lognormal's region
              const months = Math.floor(12 * years);
              const coarse = GridWealth.after(months, { m, s2 }, ratio);
              const fine = GridWealth.after(months, { m, s2 }, ratio, 4, 0.03);
              for (const level of [0.5, 1, 2, 5, 30]) {
                const at = level * (months + ratio);
                worst = Math.max(worst, Math.abs(coarse.exceeds(at, 0.04) - fine.exceeds(at, 0.04)));
              }
            }
      expect(worst).to.be.above(0).and.below(0.0002);
    });
  });
});
