import type { ValuePoint } from '../services/value-history.js';
import { at, percent } from './format.js';
import { html, type Html } from './html.js';

/**
 * Charts as server-rendered SVG: no script and no library to serve (the CSP allows neither inline styles nor other
 * origins), presentation attributes only. Each is an image with a title and a description saying what it shows,
 * and its numbers are also on the page as a table: the text alternative.
 */

export interface AllocationRow {
  symbol: string;
  target: number;
  current: number;
}

const W = 600;

export function allocationChart(rows: AllocationRow[]): Html {
  const rowHeight = 34;
  const height = rows.length * rowHeight + 24;
  const bar = (weight: number) => Math.max(0, Math.min(1, weight)) * 360;
  const off = rows
    .filter((r) => Math.abs(r.current - r.target) >= 0.005)
    .map((r) => `${r.symbol} ${percent(r.current)} against ${percent(r.target)}`);
  const description = off.length ? `Off target: ${off.join('; ')}.` : 'Every holding is at its target weight.';
  return html`<figure class="chart"><svg viewBox="0 0 ${W} ${height}" role="img" aria-labelledby="alloc-title alloc-desc" class="chart-svg">
<title id="alloc-title">Allocation against the policy's target</title><desc id="alloc-desc">${description}</desc>
${rows.map((r, i) => {
  const y = i * rowHeight + 4;
  return html`<text x="0" y="${y + 18}" class="chart-label">${r.symbol}</text>
<rect x="80" y="${y}" width="${bar(r.target)}" height="12" class="bar-target"></rect>
<rect x="80" y="${y + 14}" width="${bar(r.current)}" height="12" class="bar-current"></rect>
<text x="${W}" y="${y + 18}" text-anchor="end" class="chart-label">${percent(r.current)} / ${percent(r.target)}</text>`;
})}
<rect x="80" y="${height - 14}" width="12" height="10" class="bar-target"></rect><text x="96" y="${height - 5}" class="chart-legend">target</text>
<rect x="170" y="${height - 14}" width="12" height="10" class="bar-current"></rect><text x="186" y="${height - 5}" class="chart-legend">now</text>
</svg><figcaption>${description}</figcaption></figure>
<table class="cards"><caption>Allocation: now and target</caption>
<thead><tr><th scope="col">Symbol</th><th scope="col">Now</th><th scope="col">Target</th><th scope="col">Difference</th></tr></thead>
<tbody>${rows.map(allocationRow)}</tbody></table>`;
}

function allocationRow(r: AllocationRow): Html {
  const difference = `${r.current - r.target >= 0 ? '+' : '−'}${percent(Math.abs(r.current - r.target))}`;
  return html`<tr><td data-label="Symbol">${r.symbol}</td><td data-label="Now">${percent(r.current)}</td>
<td data-label="Target">${percent(r.target)}</td><td data-label="Difference">${difference}</td></tr>`;
}

/** The value chart's frame, in SVG units (the image scales with the page); FONT is `.chart-legend`'s font-size. */
const VALUE = { height: 240, top: 14, bottom: 34, right: 10, font: 17 } as const;

/** A step of 1, 2, 2.5 or 5 × 10ⁿ at least `rough`: gridlines fall on numbers a person reads at a glance. */
function roundStep(rough: number): number {
  const power = 10 ** Math.floor(Math.log10(rough));
  return ([1, 2, 2.5, 5, 10].find((m) => m * power >= rough * (1 - 1e-9)) ?? 10) * power;
}

/**
 * The value axis: gridlines at round numbers, four to six intervals. A series that moves less than 2 % of its value
 * (a new account, an idle month) is drawn from zero, so its line sits at its height above zero rather than floating
 * in the middle of an empty frame; a moving one spans its own range, so a small move is still seen.
 */
export function valueScale(values: number[]): { min: number; max: number; ticks: number[]; flat: boolean } {
  const low = Math.min(...values);
  const high = Math.max(...values);
  const flat = high - low < Math.max(1, Math.abs(high) * 0.02);
  const [from, to] = flat ? [Math.min(0, low), Math.max(high * 1.2, low + 1)] : [low, high];
  const step = Math.max(1, roundStep((to - from) / 4));
  const min = Math.floor(from / step) * step;
  const max = Math.max(min + step, Math.ceil(to / step) * step);
  const ticks = Array.from({ length: Math.round((max - min) / step) + 1 }, (_, i) => min + i * step);
  return { min, max, ticks, flat };
}

export function valueChart(points: ValuePoint[], money: (n: number) => string, wholeMoney: (n: number) => string): Html {
  if (points.length < 2) return html`<p>Not enough history yet: the chart starts with your first fill.</p>`;
  const { height, top, bottom, right, font } = VALUE;
  const values = points.map((p) => p.value);
  const { min, max, ticks, flat } = valueScale(values);
  const labels = ticks.map((t) => wholeMoney(t));
  // The value labels sit in a gutter of their own, right-aligned against the plot; the dates sit under the plot.
  const left = Math.ceil(Math.max(...labels.map((l) => l.length)) * font * 0.62) + 10;
  const plotW = W - left - right;
  const plotH = height - top - bottom;
  const t0 = Date.parse(points[0]!.at);
  const span = Math.max(1, Date.parse(points.at(-1)!.at) - t0);
  const x = (p: ValuePoint) => left + ((Date.parse(p.at) - t0) / span) * plotW;
  const y = (v: number) => top + (1 - (v - min) / (max - min)) * plotH;
  const gridline = (at: number, label: string, axis: boolean) =>
    html`<line x1="${left}" y1="${at.toFixed(1)}" x2="${left + plotW}" y2="${at.toFixed(1)}" class="${axis ? 'axis' : 'grid'}"></line>
<text x="${left - 8}" y="${(at + font * 0.35).toFixed(1)}" text-anchor="end" class="chart-legend">${label}</text>`;
  const line = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const area = `${line} L${(left + plotW).toFixed(1)},${(top + plotH).toFixed(1)} L${left},${(top + plotH).toFixed(1)} Z`;
  const first = points[0]!;
  const last = points.at(-1)!;
  const since = `${first.at.slice(0, 16).replace('T', ' ')} UTC`;
  const [lowest, highest] = [money(Math.min(...values)), money(Math.max(...values))];
  const description = !flat
    ? `From ${money(first.value)} at ${since} to ${money(last.value)} now; lowest ${lowest}, highest ${highest}.`
    : lowest === highest
      ? `${money(last.value)} now, unchanged since ${since}.`
      : `${money(last.value)} now, between ${lowest} and ${highest} since ${since}.`;
  return html`<figure class="chart"><svg viewBox="0 0 ${W} ${height}" role="img" aria-labelledby="value-title value-desc" class="chart-svg value-chart">
<title id="value-title">Portfolio value over time</title><desc id="value-desc">${description}</desc>
${ticks.map((t, i) => gridline(y(t), labels[i]!, i === 0))}
<path d="${area}" class="area"></path>
<path d="${line}" class="line"></path>
<circle cx="${x(last).toFixed(1)}" cy="${y(last.value).toFixed(1)}" r="4" class="dot"></circle>
<text x="${left}" y="${height - 6}" class="chart-legend">${first.at.slice(0, 10)}</text>
<text x="${left + plotW}" y="${height - 6}" text-anchor="end" class="chart-legend">now</text>
</svg><figcaption>${description}</figcaption></figure>
<details><summary>The values as a table</summary><table class="cards"><caption>Portfolio value over time</caption>
<thead><tr><th scope="col">When</th><th scope="col">Value</th><th scope="col">Cash</th></tr></thead>
<tbody>${points.map(
    (p) =>
      html`<tr><td data-label="When">${at(p.at)}</td><td data-label="Value">${money(p.value)}</td><td data-label="Cash">${money(p.cash)}</td></tr>`,
  )}</tbody></table></details>`;
}
