// Root finding shared by the feasibility searches (amounts) and the conditional lognormal (its step in z).

/**
 * The boundary between `bad` (f < q) and `good` (f ≥ q) of a monotone f (either order), to `resolution`, returning
 * the `good` end. While the ends are more than a factor 4 apart it bisects geometrically (`geometric`, for positive
 * amounts: their ranges span many orders of magnitude and f saturates at 0 or 1 far from the boundary); then
 * regula falsi with the Illinois modification, a secant point next to an end moved half a resolution inside, and,
 * whenever a step did not halve the bracket twice in a row, a point past the good end by twice its last move (when
 * the secant converges on that end alone) or a bisection: a dozen evaluations where bisection takes about 45.
 * `scale` (monotone) puts the secant's values on another scale, where f rises more nearly linearly.
 */
/** Scaled values are held within ±8.3: a probability of exactly 1 is within 1e-16 of it, Φ(8.3) = 1 − 5e-17. */
const SCALE_LIMIT = 8.3;

export function boundary(
  f: (x: number) => number,
  q: number,
  bad: number,
  good: number,
  resolution: number,
  geometric = true,
  scale?: (value: number) => number,
): number {
  // The secant works on scale(f) − scale(q) where a scale is given (a probit makes a probability's S-shaped rise
  // nearly linear), its sign always that of f − q.
  const level = scale ? scale(q) : q;
  const gap = (value: number) => {
    if (!scale) return value - q;
    const scaled = Math.max(-SCALE_LIMIT, Math.min(SCALE_LIMIT, scale(value))) - level;
    return value >= q ? Math.max(scaled, 0) : Math.min(scaled, -Number.MIN_VALUE);
  };
  let fBad = gap(f(bad));
  let fGood = gap(f(good));
  let side = 0;
  let slow = 0;
  let moved = Infinity; // how far the good end moved at its last step
  for (let i = 0; i < 400; i++) {
    const width = Math.abs(good - bad);
    if (width <= resolution || width <= Math.abs(good) * 1e-15) break;
    const lo = Math.max(Math.min(bad, good), resolution);
    const hi = Math.max(bad, good);
    const towardBad = Math.sign(bad - good);
    let x: number;
    if (geometric && hi / lo > 4) x = Math.sqrt(lo * hi);
    else if (slow >= 2) {
      // The secant converging on the good end alone: a point past it on the bad side by twice its last move closes
      // the bracket there (a plain bisection would move the far end only halfway).
      x = side === 1 && moved < width / 8 ? good + towardBad * Math.max(2 * moved, resolution / 2) : bad + (good - bad) / 2;
      slow = 0;
    } else {
      x = good - (fGood * (good - bad)) / (fGood - fBad);
      if (!Number.isFinite(x)) x = bad + (good - bad) / 2;
      if (Math.abs(x - good) < resolution / 2) x = good + towardBad * (resolution / 2);
      if (Math.abs(x - bad) < resolution / 2) x = bad - towardBad * (resolution / 2);
    }
    const fx = gap(f(x));
    if (fx >= 0) {
      moved = Math.abs(x - good);
      good = x;
      fGood = fx;
      if (side === 1) fBad /= 2;
      side = 1;
    } else {
      bad = x;
      fBad = fx;
      if (side === -1) fGood /= 2;
      side = -1;
    }
    slow = Math.abs(good - bad) > width / 2 ? slow + 1 : 0;
  }
  return good;
}
