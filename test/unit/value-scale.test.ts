import { expect } from 'chai';
import { valueScale } from '../../src/dashboard/charts.js';

describe('the value chart scale', () => {
  it('spans a moving series with gridlines at round numbers, four to six intervals', () => {
    const scale = valueScale([100_000, 101_550, 103_884.04, 101_800.01]);
    expect(scale).to.deep.equal({ min: 100_000, max: 104_000, ticks: [100_000, 101_000, 102_000, 103_000, 104_000], flat: false });
  });

  it('draws a series that moves less than 2 % from zero, so its line stands at its height', () => {
    expect(valueScale([100_000, 100_000])).to.deep.equal({ min: 0, max: 150_000, ticks: [0, 50_000, 100_000, 150_000], flat: true });
    expect(valueScale([100_000, 101_000]).flat).to.equal(true);
    expect(valueScale([100_000, 102_500]).flat).to.equal(false);
  });

  it('keeps whole-unit steps for tiny values, so no two labels read the same', () => {
    const scale = valueScale([0, 0]);
    expect(scale.ticks).to.deep.equal([0, 1]);
    expect(valueScale([3, 3.5]).ticks.every(Number.isInteger)).to.equal(true);
  });

  it('never draws more than seven gridlines', () => {
    for (const values of [
      [1, 1_000_000],
      [99_999, 100_001],
      [12_345, 67_890],
      [0.5, 7],
    ])
      expect(valueScale(values).ticks.length, values.join('..')).to.be.within(2, 7);
  });
});
