// The market model every law shares: the annual log-return N(m, s²) of a lognormal with arithmetic mean μ and
// standard deviation σ.

/** Annual log-return N(m, s²). */
export interface LogModel {
  m: number;
  s2: number;
}

export function logModel(mu: number, sigma: number): LogModel {
  const s2 = Math.log1p((sigma / (1 + mu)) ** 2);
  return { m: Math.log1p(mu) - s2 / 2, s2 };
}
