// The suggestions that are amounts: capital needed, target reachable and monthly contribution needed.
import type { GridReach } from './laws/log-grid-reach.js';
import { WealthMoments } from './laws/moments.js';
import { gridLaw, onGrid, probability, reachLaw, reaches, wealthLaw, wholeMonths, type Scenario } from './probability.js';
import {
  atLeast,
  bracket,
  memo,
  probabilityBoundary,
  REACH_MARGIN,
  roundedWithProbability,
  SEARCH_RESOLUTION,
  solveNear,
  solveOnGrid,
} from './search.js';
import {
  MAX_CAPITAL,
  MAX_MONTHLY_CONTRIBUTION,
  MAX_TARGET,
  REACHED,
  type CapitalNeededSuggestion,
  type MonthlyContributionNeededSuggestion,
  type TargetReachableSuggestion,
} from './types.js';

export function capitalNeeded(s: Scenario, z: number, decimals: number, q: number): CapitalNeededSuggestion {
  const prob = memo((capital: number) => probability({ ...s, capital }));
  const { m, s2 } = s.model;
  const beyond = (): CapitalNeededSuggestion => ({
    kind: 'capital_needed',
    capital: MAX_CAPITAL,
    probability: prob(MAX_CAPITAL),
    attainable: false,
    reason: `No starting capital up to the request's maximum (${MAX_CAPITAL}) reaches the confidence; the capital and probability given are that maximum's.`,
  });
  // Without contributions, P ≥ q ⇔ C ≥ K·exp(−mT + z·s·√T); with them, that is where the search starts.
  let estimate = s.target * Math.exp(-m * s.years + z * Math.sqrt(s2 * s.years));
  const grid = s.monthly > 0 && onGrid(s);
  // On the log grid every capital is a new convolution (the start ratio C/c): the backward grid gives P for all of
  // them from one, within REACH_MARGIN, and the forward grid computes only the amounts the search settles on.
  let proxy: ((capital: number) => number) | undefined;
  const fast = memo(
    grid ? (capital: number) => (proxy ??= capitalProxy(s, decimals))(capital) : (capital: number) => probability({ ...s, capital }, true),
  );
  if (s.monthly > 0) {
    // Without capital, P is computed exactly (its law serves the contribution search too); the largest capital is
    // decided by the backward grid where it is clear.
    if (prob(0) >= q) return { kind: 'capital_needed', capital: 0, probability: prob(0), ...REACHED };
    const enough = grid
      ? atLeast(
          () => prob(MAX_CAPITAL),
          () => fast(MAX_CAPITAL),
          q,
          REACH_MARGIN,
        )
      : reaches({ ...s, capital: MAX_CAPITAL }, q);
    if (!enough) return beyond();
    // From the lump-sum estimate, bracketed by factors of 2 (bisecting from the bound would take ~25 more steps),
    // with the cheap method; on the log grid that answer is then refined.
    estimate = Number.isNaN(estimate) ? MAX_CAPITAL : Math.min(MAX_CAPITAL, Math.max(estimate, 10 ** -decimals));
    const [short, long] = bracket(fast, q, estimate, MAX_CAPITAL);
    estimate = probabilityBoundary(fast, q, short, long, SEARCH_RESOLUTION * 10 ** -decimals);
  } else if (!(estimate <= MAX_CAPITAL)) {
    return beyond();
  }
  const { value, probability: p } = grid
    ? solveOnGrid(prob, () => fast, q, estimate, MAX_CAPITAL, decimals)
    : roundedWithProbability(estimate, decimals, 'up', q, prob, MAX_CAPITAL);
  if (p < q) return beyond();
  return { kind: 'capital_needed', capital: value, probability: p, ...REACHED };
}

/** The factor by which the contribution search's stand-in, a local one, may move the amount in one step. */
const CONTRIBUTION_STEP = 256;

/** The largest start ratio C/c a search may ask about: the largest capital over the smallest contribution. */
function largestRatio(decimals: number): number {
  return MAX_CAPITAL * 10 ** decimals;
}

/** P as a function of the capital on the log grid, from the backward grid at the request's level and horizon. */
function capitalProxy(s: Scenario, decimals: number): (capital: number) => number {
  const months = wholeMonths(s.years);
  const law = reachLaw(months, Math.max(0, s.years - months / 12), s.model, s.target / s.monthly, largestRatio(decimals));
  return (capital) => law.reach(capital / s.monthly);
}

/**
 * P as a function of the contribution near `anchor` on the log grid: a contribution c moves both the start ratio
 * C/c and the level K/c. The forward grid at the anchor's ratio gives P for every level exactly; the backward grid
 * at the anchor's level gives it for every ratio (laws/log-grid-reach.ts). Along c the two partial changes nearly cancel (more
 * contribution, less capital relative to it), so their sum misses P's change by their interaction, Δln ρ·Δln ℓ times
 * a mixed derivative that each new anchor measures from what the last stand-in predicted there: with it, a step lands
 * within a small fraction of the remaining distance.
 */
function contributionProxy(s: Scenario, unit: number): (anchor: number) => (monthly: number) => number {
  const months = wholeMonths(s.years);
  const fraction = Math.max(0, s.years - months / 12);
  const none = probability({ ...s, monthly: 0 });
  let back: GridReach | undefined;
  let level = 0;
  let mixed = 0;
  let last: { anchor: number; predict: (monthly: number) => number } | undefined;
  return (amount) => {
    // Around no contribution at all (P there is the closed form's), the grids of the smallest one.
    const anchor = Math.max(amount, unit);
    // The backward grid is made again where the level has moved on by more than 2 %.
    if (!back || Math.abs(Math.log(s.target / anchor / level)) > 0.02) {
      level = s.target / anchor;
      back = reachLaw(months, fraction, s.model, level, largestRatio(-Math.log10(unit)));
    }
    const forward = gridLaw(months, s.model, s.capital / anchor);
    const here = forward.exceeds(s.target / anchor, fraction);
    const moved = last ? Math.log(anchor / last.anchor) : 0;
    if (last && Math.abs(moved) > 1e-9) mixed += (here - last.predict(anchor)) / (moved * moved);
    const sensitivity = back;
    const base = sensitivity.reach(s.capital / anchor);
    const predict = (monthly: number) => {
      if (monthly < unit) return none;
      const step = Math.log(monthly / anchor);
      return forward.exceeds(s.target / monthly, fraction) + sensitivity.reach(s.capital / monthly) - base + mixed * step * step;
    };
    last = { anchor, predict };
    return predict;
  };
}

export function targetReachable(s: Scenario, z: number, decimals: number, q: number): TargetReachableSuggestion {
  const prob = memo((target: number) => probability({ ...s, target }));
  // P(W ≥ K) = Φ((ν − ln K)/τ) ≥ q ⇔ K ≤ exp(ν − zτ) under the two-moment fit (exact without contributions): the
  // start; with contributions the largest K whose probability reaches q is then searched for (P falls as K rises).
  const law = wealthLaw(s.capital, s.monthly, s.years, s.model);
  let reachable = law.nu === -Infinity ? 0 : Math.exp(law.nu - z * Math.sqrt(law.tau2));
  if (s.monthly > 0 && reachable > 0 && Number.isFinite(reachable)) {
    let low = reachable;
    for (let i = 0; i < 200 && low > 0 && prob(low) < q; i++) low /= 1.25;
    let high = Math.max(low, reachable);
    for (let i = 0; i < 200 && prob(high) >= q && Number.isFinite(high * 1.25); i++) high *= 1.25;
    reachable = prob(high) >= q ? high : probabilityBoundary(prob, q, high, low, SEARCH_RESOLUTION * 10 ** -decimals);
  }
  const { value, probability: p } = roundedWithProbability(reachable, decimals, 'down', q, prob, MAX_TARGET);
  if (value <= 0 || p < q) {
    const smallest = 10 ** -decimals;
    return {
      kind: 'target_reachable',
      target: smallest,
      probability: prob(smallest),
      attainable: false,
      reason: `Not even the smallest positive target (${smallest}) is reached with the confidence; the target and probability given are that smallest one's.`,
    };
  }
  return { kind: 'target_reachable', target: value, probability: p, ...REACHED };
}

/**
 * The contribution whose mean wealth is the target (mean wealth is linear in it), where the search brackets the
 * answer from: a few factors of 2 at most, where the request's own contribution may be many away. Undefined when the
 * capital alone has that mean.
 */
function contributionGuess(s: Scenario): number | undefined {
  const months = wholeMonths(s.years);
  const growth = Math.exp((s.model.m + s.model.s2 / 2) * Math.max(0, s.years - months / 12));
  const perUnit = new WealthMoments(0, 1, s.model);
  perUnit.advanceTo(months);
  const guess = (s.target - s.capital * Math.exp((s.model.m + s.model.s2 / 2) * s.years)) / (perUnit.mean * growth);
  return guess > 0 && Number.isFinite(guess) ? guess : undefined;
}

export function contributionNeeded(s: Scenario, decimals: number, q: number): MonthlyContributionNeededSuggestion {
  const prob = memo((monthly: number) => probability({ ...s, monthly }));
  const resolution = SEARCH_RESOLUTION * 10 ** -decimals;
  const answer = (monthly: number) => roundedWithProbability(monthly, decimals, 'up', q, prob, MAX_MONTHLY_CONTRIBUTION);
  const { value, probability: p } = ((): { value: number; probability: number } => {
    if (prob(0) >= q) return answer(0);
    // Capital only adds to wealth: where the contributions alone reach q (the law without capital, which the capital
    // search computed), the largest contribution does.
    const alone = s.capital > 0 && reaches({ ...s, capital: 0, monthly: MAX_MONTHLY_CONTRIBUTION }, q);
    if (!alone && !reaches({ ...s, monthly: MAX_MONTHLY_CONTRIBUTION }, q)) return answer(MAX_MONTHLY_CONTRIBUTION);
    if (s.capital > 0 && onGrid({ ...s, monthly: 1 })) {
      // On the log grid each contribution changes the start ratio C/c (a new convolution): the search steps with the
      // forward and backward grids around each amount it computes, from the request's own (whose grids the other
      // suggestions computed). Without capital the ratio stays 0 and one grid serves every contribution.
      const proxy = contributionProxy(s, 10 ** -decimals);
      // Without a contribution of its own, the request's law has no grid to step from: the conditional lognormal's
      // answer is the first amount.
      const fast = memo((monthly: number) => probability({ ...s, monthly }, true));
      const guess = () => {
        const [short, enough] = bracket(fast, q, contributionGuess(s) ?? 1, MAX_MONTHLY_CONTRIBUTION);
        return probabilityBoundary(fast, q, short, enough, resolution);
      };
      const own = s.monthly > 0 ? solveNear(proxy(s.monthly), q, s.monthly, MAX_MONTHLY_CONTRIBUTION, resolution) : NaN;
      const start = own >= s.monthly / CONTRIBUTION_STEP && own <= s.monthly * CONTRIBUTION_STEP ? own : guess();
      return solveOnGrid(prob, proxy, q, start, MAX_MONTHLY_CONTRIBUTION, decimals, CONTRIBUTION_STEP);
    }
    const [short, enough] = bracket(prob, q, contributionGuess(s) ?? s.monthly, MAX_MONTHLY_CONTRIBUTION);
    return answer(probabilityBoundary(prob, q, short, enough, resolution));
  })();
  if (p < q) {
    return {
      kind: 'monthly_contribution_needed',
      monthly_contribution: MAX_MONTHLY_CONTRIBUTION,
      probability: prob(MAX_MONTHLY_CONTRIBUTION),
      attainable: false,
      reason:
        `No monthly contribution up to the request's maximum (${MAX_MONTHLY_CONTRIBUTION}) reaches the confidence; ` +
        "the contribution and probability given are that maximum's.",
    };
  }
  return { kind: 'monthly_contribution_needed', monthly_contribution: value, probability: p, ...REACHED };
}
