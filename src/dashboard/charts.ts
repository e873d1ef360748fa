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
<table class="cards"><caption>Allocation: now and target</caption><thead><tr><th scope="col">Symbol</th><th scope="col">Now</th><th scope="col">Target</th><th scope="col">Difference</th></tr></thead>
<tbody>${rows.map((r) => html`<tr><td data-label="Symbol">${r.symbol}</td><td data-label="Now">${percent(r.current)}</td><td data-label="Target">${percent(r.target)}</td><td data-label="Difference">${r.current - r.target >= 0 ? '+' : '−'}${percent(Math.abs(r.current - r.target))}</td></tr>`)}</tbody></table>`;
}

export function valueChart(points: ValuePoint[], money: (n: number) => string): Html {
  if (points.length < 2) return html`<p>Not enough history yet: the chart starts with your first fill.</p>`;
  const height = 220;
  const left = 8;
  const top = 16;
  const plotW = W - 16;
  const plotH = height - 48;
  const values = points.map((p) => p.value);
  let min = Math.min(...values);
  let max = Math.max(...values);
  // A small move is drawn small: the scale spans at least 2 % of the value (and 1 unit), centred on the values.
  const least = Math.max(1, max * 0.02);
  if (max - min < least) {
    const middle = (max + min) / 2;
    min = middle - least / 2;
    max = middle + least / 2;
  }
  const t0 = Date.parse(points[0]!.at);
  const span = Math.max(1, Date.parse(points.at(-1)!.at) - t0);
  const x = (p: ValuePoint) => left + ((Date.parse(p.at) - t0) / span) * plotW;
  const y = (v: number) => top + (1 - (v - min) / (max - min)) * plotH;
  const path = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const first = points[0]!;
  const last = points.at(-1)!;
  const description = `From ${money(first.value)} at ${first.at.slice(0, 16).replace('T', ' ')} UTC to ${money(last.value)} now; lowest ${money(Math.min(...values))}, highest ${money(Math.max(...values))}.`;
  return html`<figure class="chart"><svg viewBox="0 0 ${W} ${height}" role="img" aria-labelledby="value-title value-desc" class="chart-svg">
<title id="value-title">Portfolio value over time</title><desc id="value-desc">${description}</desc>
<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" class="axis"></line>
<path d="${path}" class="line"></path>
<text x="${left}" y="${top - 4}" class="chart-legend">${money(max)}</text>
<text x="${left}" y="${top + plotH + 16}" class="chart-legend">${money(min)}</text>
<text x="${left}" y="${height - 4}" class="chart-legend">${first.at.slice(0, 10)}</text>
<text x="${left + plotW}" y="${height - 4}" text-anchor="end" class="chart-legend">now</text>
</svg><figcaption>${description}</figcaption></figure>
<details><summary>The values as a table</summary><table class="cards"><caption>Portfolio value over time</caption><thead><tr><th scope="col">When</th><th scope="col">Value</th><th scope="col">Cash</th></tr></thead>
<tbody>${points.map((p) => html`<tr><td data-label="When">${at(p.at)}</td><td data-label="Value">${money(p.value)}</td><td data-label="Cash">${money(p.cash)}</td></tr>`)}</tbody></table></details>`;
}
