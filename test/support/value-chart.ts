import { expect } from 'chai';
import type { Page } from 'playwright-core';

interface Box {
  text: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** What the Overview's value chart shows, measured in the page as drawn (CSS pixels). */
async function measure(page: Page) {
  // No function is declared inside: the page runs this as it is, without tsx's helpers.
  return page.locator('svg.value-chart').evaluate((svg) => {
    const texts = [...svg.querySelectorAll('text')];
    const axis = svg.querySelector('line.axis')!;
    const axisY = Number(axis.getAttribute('y1'));
    const frame = svg.getBoundingClientRect();
    return {
      frame: { text: '', left: frame.left, top: frame.top, right: frame.right, bottom: frame.bottom },
      labels: texts.map((t) => {
        const r = t.getBoundingClientRect();
        return { text: t.textContent ?? '', left: r.left, top: r.top, right: r.right, bottom: r.bottom };
      }),
      lineYs: [...(svg.querySelector('path.line')!.getAttribute('d') ?? '').matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => Number(m[1])),
      axisY,
      axisLabel: texts.find((t) => Math.abs(Number(t.getAttribute('y')) - axisY) < 10)?.textContent,
    };
  });
}

const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/**
 * The Overview's value chart at 1280 and 390 px: no two labels overlap, each inside the image, and a screenshot of
 * it at each width for a reviewer (`${path}-1280.png`, `${path}-390.png`). A flat series is drawn at its height above
 * a zero axis, not in the middle of an empty frame.
 */
export async function expectReadableValueChart(page: Page, path: string, options: { flat: boolean }): Promise<void> {
  const viewport = page.viewportSize()!;
  try {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const chart = await measure(page);
      const where = `value chart at ${width} px`;
      expect(chart.labels.length, where).to.be.at.least(4);
      for (const [i, a] of chart.labels.entries()) {
        expect(a.left >= chart.frame.left - 0.5 && a.right <= chart.frame.right + 0.5, `${where}: "${a.text}" inside the image`).to.equal(
          true,
        );
        for (const b of chart.labels.slice(i + 1)) expect(overlap(a, b), `${where}: "${a.text}" and "${b.text}" overlap`).to.equal(false);
      }
      if (options.flat) {
        expect(new Set(chart.lineYs).size, `${where}: a flat line`).to.equal(1);
        expect(chart.axisLabel, `${where}: the axis is zero`).to.match(/ 0$/);
        expect(chart.lineYs[0]!, `${where}: the line stands above the axis`).to.be.below(chart.axisY - 20);
      }
      await page.locator('figure:has(svg.value-chart)').screenshot({ path: `${path}-${width}.png` });
    }
  } finally {
    await page.setViewportSize(viewport);
  }
}
