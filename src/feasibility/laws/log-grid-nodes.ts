// The log grid's nodes (log-grid.ts, log-grid-reach.ts): where a grid's nodes stand, the kernel that adds a month's
// normal log-return to a distribution on them, and the quintic Lagrange weights that read it between nodes.
import { normalCdf } from '../math/normal.js';

/** Grid points per standard deviation of a month's log-return. */
export const GRID_RESOLUTION = 1;
/**
 * The largest grid step in ln(W/c), whatever the volatility: the softplus bends on a scale of 1 (see the accuracy in
 * log-grid.ts; at σ 2 a step of 0.24 holds 2 points per monthly sd).
 */
export const MAX_STEP = 0.24;
/**
 * The most nodes a grid may have, whatever the request: its memory (about 60 bytes a node here and as much in the
 * WebAssembly module) is bounded by construction. The service builds grids only where s² > 0.0001 (probability.ts:
 * narrower laws use their moments), where one monthly sd is at least 0.0029 and the span at most about 115, so
 * 40,000 nodes at most; a grid that would need more gets a coarser step instead (never, for an accepted request).
 */
export const MAX_NODES = 65_536;
const PHI_NORM = 1 / Math.sqrt(2 * Math.PI);
/** From this many grid steps of standard deviation on, the kernel is the sampled normal density (trapezoid rule). */
const SAMPLED_SD = 0.9;

/** Weights W_d of the nodes d = from, from + 1, … for adding a normal variable (in grid units) to a distribution. */
export interface Kernel {
  from: number;
  weights: Float64Array;
}

/**
 * The normal density sampled at the nodes from SAMPLED_SD steps of standard deviation on; narrower, the integral of
 * each node's hat function against it (exact for a piecewise-linear distribution function), a point at sd = 0.
 */
export function normalKernel(mean: number, sd: number): Kernel {
  // g(t) = E[(t − X)^+] = (t − μ)Φ((t − μ)/σ) + σφ((t − μ)/σ); hat(d − X) = (d+1−X)^+ − 2(d−X)^+ + (d−1−X)^+.
  const g = (t: number) => {
    const z = (t - mean) / sd;
    return (t - mean) * normalCdf(z) + sd * PHI_NORM * Math.exp(-0.5 * z * z);
  };
  const reach = 6.5 * sd + 1;
  const from = Math.floor(mean - reach);
  const to = Math.ceil(mean + reach);
  const weights = new Float64Array(to - from + 1);
  let total = 0;
  const sampled = sd >= SAMPLED_SD;
  for (let d = from; d <= to; d++) {
    const w = sampled
      ? Math.exp(-0.5 * ((d - mean) / sd) ** 2)
      : sd > 0
        ? g(d + 1) - 2 * g(d) + g(d - 1)
        : Math.max(0, 1 - Math.abs(d - mean));
    weights[d - from] = Math.max(0, w);
    total += weights[d - from]!;
  }
  for (let i = 0; i < weights.length; i++) weights[i]! /= total;
  return { from, weights };
}

/**
 * The nodes of a grid for a monthly log-return sd `b` up to `top`: from a few sd below 0 (U = L + X), `resolution`
 * points per sd but steps of at most `maxStep`, and never more than MAX_NODES (a coarser step instead).
 */
export function gridGeometry(
  b: number,
  top: number,
  resolution = GRID_RESOLUTION,
  maxStep = MAX_STEP,
): { bottom: number; step: number; size: number } {
  const bottom = -(1 + 12 * b);
  if (!(top - bottom < 1e6)) throw new RangeError(`a log grid cannot span [${bottom}, ${top}]`);
  const step = Math.max(Math.min(b / resolution, maxStep), (top - bottom) / (MAX_NODES - 4));
  return { bottom, step, size: Math.min(MAX_NODES, Math.ceil((top - bottom) / step) + 4) };
}

/** The interpolation's nodes around a point between nodes 0 and 1: −2 … 3 (quintic Lagrange). */
export const STENCIL = [-2, -1, 0, 1, 2, 3] as const;
export const POINTS = STENCIL.length;

/** Quintic Lagrange weights of the nodes −2 … 3 at t ∈ [0, 1), written to out[at], out[at + stride], … (six). */
export function lagrange(t: number, out: Float64Array, at: number, stride = 1): void {
  const a = t + 2;
  const b = t + 1;
  const d = t - 1;
  const e = t - 2;
  const g = t - 3;
  const ab = a * b;
  const eg = e * g;
  const deg = d * eg;
  const abt = ab * t;
  out[at] = -(b * t * deg) / 120;
  out[at + stride] = (a * t * deg) / 24;
  out[at + 2 * stride] = -(ab * deg) / 12;
  out[at + 3 * stride] = (abt * eg) / 12;
  out[at + 4 * stride] = -(abt * d * g) / 24;
  out[at + 5 * stride] = (abt * d * e) / 120;
}
