// Gauss–Legendre quadrature: the nodes and weights, and the expectation of a function of a standard normal variable
// that the log grids read their leftover fraction of a year and their first month with.

export function gaussLegendre(n: number): { x: number[]; w: number[] } {
  const x: number[] = [];
  const w: number[] = [];
  for (let i = 0; i < n; i++) {
    let z = Math.cos((Math.PI * (i + 0.75)) / (n + 0.5));
    let dp = 0;
    for (let iter = 0; iter < 100; iter++) {
      let p0 = 1;
      let p1 = z;
      for (let k = 2; k <= n; k++) {
        const p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      dp = (n * (z * p1 - p0)) / (z * z - 1);
      const dz = p1 / dp;
      z -= dz;
      if (Math.abs(dz) < 1e-15) break;
    }
    x.push(z);
    w.push(2 / ((1 - z * z) * dp * dp));
  }
  return { x, w };
}

const GL5 = gaussLegendre(5);
const PHI_NORM = 1 / Math.sqrt(2 * Math.PI);
const PANELS = 7;
const PANEL_LIMIT = 7;

/** E[f(Z)], Z standard normal, by composite Gauss–Legendre over ±7 (PANELS panels of five points). */
export function normalExpectation(f: (z: number) => number): number {
  const width = (2 * PANEL_LIMIT) / PANELS;
  let integral = 0;
  for (let panel = 0; panel < PANELS; panel++) {
    const mid = -PANEL_LIMIT + (panel + 0.5) * width;
    for (let k = 0; k < GL5.x.length; k++) {
      const z = mid + (width / 2) * GL5.x[k]!;
      integral += GL5.w[k]! * (width / 2) * PHI_NORM * Math.exp(-0.5 * z * z) * f(z);
    }
  }
  return integral;
}
