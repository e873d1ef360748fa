import { expect } from 'chai';
import { dec, num, roundMoney, roundPrice, roundQuantity } from '../../src/services/money.js';

/** Amounts worked out by hand, in whole cents: the rounding is the ledger's half-even, once. */
describe('money: rounding to the documented precision', () => {
  it('rounds an exact half cent to the even cent, and everything else to the nearest', () => {
    const cases: [string, string][] = [
      ['5.005', '5.00'],
      ['5.015', '5.02'],
      ['5.025', '5.02'],
      ['5.035', '5.04'],
      ['0.125', '0.12'],
      ['0.135', '0.14'],
      ['2.675', '2.68'],
      ['-0.125', '-0.12'],
      ['-5.015', '-5.02'],
      ['5.0050000001', '5.01'],
      ['5.0049999999', '5.00'],
      ['10000000.005', '10000000.00'],
      ['10000000.015', '10000000.02'],
      ['0.004', '0.00'],
      ['0.006', '0.01'],
      ['1', '1.00'],
    ];
    for (const [value, cents] of cases) expect(roundMoney(dec(value)).toFixed(2), value).to.equal(cents);
  });

  it('rounds to another number of minor units when the currency has them (0 for JPY, 3 for BHD)', () => {
    expect(roundMoney(dec('100.5'), 0).toFixed()).to.equal('100');
    expect(roundMoney(dec('101.5'), 0).toFixed()).to.equal('102');
    expect(roundMoney(dec('1.0005'), 3).toFixed()).to.equal('1');
    expect(roundMoney(dec('1.0015'), 3).toFixed()).to.equal('1.002');
  });

  it('cuts quantities toward zero at 6 decimals (an order never asks for more than was computed)', () => {
    expect(roundQuantity(dec('1.2345679')).toFixed()).to.equal('1.234567');
    expect(roundQuantity(dec('1.9999999')).toFixed()).to.equal('1.999999');
    expect(roundQuantity(dec('-1.9999999')).toFixed()).to.equal('-1.999999');
    expect(roundQuantity(dec('3')).toFixed()).to.equal('3');
  });

  it('rounds prices half-even at 6 decimals', () => {
    expect(roundPrice(dec('1.0000005')).toFixed()).to.equal('1');
    expect(roundPrice(dec('1.0000015')).toFixed()).to.equal('1.000002');
    expect(roundPrice(dec('1.00000051')).toFixed()).to.equal('1.000001');
  });

  it('multiplies exactly before rounding: 0.1 × 3 is 0.30, 1 000 000 × 10.01 is 10 010 000.00', () => {
    expect(roundMoney(dec('0.1').times(3)).toFixed(2)).to.equal('0.30');
    expect(roundMoney(dec('1000000').times(dec('10.01'))).toFixed(2)).to.equal('10010000.00');
    expect(roundMoney(dec('0.5').times(dec('10.01'))).toFixed(2)).to.equal('5.00');
    expect(roundMoney(dec('0.5').times(dec('10.05'))).toFixed(2)).to.equal('5.02');
  });

  it('puts an amount on the wire as the JSON number of its decimal', () => {
    expect(num(dec('99995.00'))).to.equal(99995);
    expect(num('0.1')).to.equal(0.1);
    expect(num(12.5)).to.equal(12.5);
  });
});
