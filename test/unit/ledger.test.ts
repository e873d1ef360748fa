import { expect } from 'chai';
import { positionAfterFill, value, valueAtDayStart, valueBefore, type FillRecord } from '../../src/services/ledger.js';
import { US_UNIVERSE, type PriceSource } from '../../src/services/market-data.js';
import { dec } from '../../src/services/money.js';

// The position a fill leaves, in worked-out numbers: a buy moves the average cost to the weighted mean of what was
// paid; a sell leaves it where it was (the profit or loss is realised, not averaged in).
describe('ledger: the position a fill leaves', () => {
  const held = { symbol: 'VTI', quantity: dec('10'), average_cost: dec('100'), updated_at: new Date(0) };
  const after = (side: 'buy' | 'sell', quantity: string, price: string, position: typeof held | null = held) => {
    const p = positionAfterFill(position ?? undefined, side, dec(quantity), dec(price));
    return [p.quantity.toFixed(), p.average_cost.toFixed()];
  };

  it('a buy moves the average cost: 10 at 100.00 and 5 at 130.00 are 15 at 110.00', () => {
    expect(after('buy', '5', '130')).to.deep.equal(['15', '110']);
    expect(after('buy', '2', '50', null)).to.deep.equal(['2', '50']);
  });

  it('a sell keeps the average cost, and a sell of everything leaves nothing held', () => {
    expect(after('sell', '4', '150')).to.deep.equal(['6', '100']);
    expect(after('sell', '10', '150')).to.deep.equal(['0', '100']);
  });
});

// The account as it stood at an instant, from today's cash and positions and the fills after that instant (each
// undone): what the daily loss limit and the daily report value the start of a day with.
describe('ledger: the account before the fills after an instant', () => {
  // A source that prices every symbol it is asked for, as a broker's latest trades do.
  const prices: PriceSource = {
    instrument: () => undefined,
    instruments: () => [],
    has: () => true,
    quote: (symbol, at) => ({ symbol, price: dec(symbol === 'VTI' ? '100' : '50'), as_of: at }),
  };
  const noon = new Date('2026-11-27T12:00:00Z');
  const fill = (symbol: string, side: 'buy' | 'sell', quantity: string, notional: string, at: string): FillRecord => ({
    symbol,
    side,
    quantity,
    notional,
    at,
  });

  it('undoes only the fills after the instant: a buy gives its cash back and takes its shares, a sell the other way', () => {
    const now = { cash: dec('1000.00'), positions: [{ symbol: 'VTI', quantity: dec('10'), average_cost: dec('90'), updated_at: noon }] };
    const fills = [
      fill('VTI', 'buy', '5', '500.00', '2026-11-27T10:00:00Z'), // before noon: already in the state at noon
      fill('VTI', 'sell', '2', '210.00', '2026-11-27T12:00:00Z'), // at noon itself: in the state at noon
      fill('VTI', 'buy', '3', '330.00', '2026-11-27T13:00:00Z'), // undone: cash 1000.00 + 330.00, VTI 10 − 3
      fill('BND', 'sell', '4', '200.00', '2026-11-27T14:00:00.001Z'), // undone: cash − 200.00, BND 0 + 4
    ];
    const v = valueBefore(prices, now.cash, now.positions, fills, noon);
    expect(v.cash.toFixed(2)).to.equal('1130.00');
    expect(v.holdings.map((h) => [h.position.symbol, h.position.quantity.toFixed(), h.marketValue.toFixed(2)])).to.deep.equal([
      ['VTI', '7', '700.00'],
      ['BND', '4', '200.00'],
    ]);
    expect(v.total.toFixed(2)).to.equal('2030.00');
  });

  it('a position the undone fills bring back to nothing is not held', () => {
    const v = valueBefore(
      prices,
      dec('500.00'),
      [{ symbol: 'BND', quantity: dec('2'), average_cost: dec('50'), updated_at: noon }],
      [fill('BND', 'buy', '2', '100.00', '2026-11-27T12:30:00Z')],
      noon,
    );
    expect([v.cash.toFixed(2), v.holdings.length, v.total.toFixed(2)]).to.deep.equal(['600.00', 0, '600.00']);
  });

  it("from the day's running totals instead of its fills: the same account, and a position brought back to nothing not held", () => {
    const positions = [
      { symbol: 'VTI', quantity: dec('10'), average_cost: dec('90'), updated_at: noon },
      { symbol: 'BND', quantity: dec('2'), average_cost: dec('50'), updated_at: noon },
    ];
    // Since the day began: bought 3 VTI for 330.00, bought the 2 BND for 100.00, sold 4 QQQ (gone now) for 200.00.
    const today = {
      traded: dec('630.00'),
      cashDelta: dec('-230.00'),
      quantityDeltas: new Map([
        ['VTI', dec('3')],
        ['BND', dec('2')],
        ['QQQ', dec('-4')],
      ]),
    };
    const v = valueAtDayStart(prices, dec('1000.00'), positions, today, noon);
    expect(v.cash.toFixed(2)).to.equal('1230.00');
    expect(v.holdings.map((h) => [h.position.symbol, h.position.quantity.toFixed(), h.marketValue.toFixed(2)])).to.deep.equal([
      ['VTI', '7', '700.00'],
      ['QQQ', '4', '200.00'],
    ]);
    expect(v.total.toFixed(2)).to.equal('2130.00');
  });
});

// A holding outside the catalogue (a connected broker's): valued at the source's price when it has one, else at its
// average cost as of its last change (a past day has no broker price of it).
describe('ledger: the value of a holding outside the catalogue', () => {
  const at = new Date('2026-11-27T15:00:00Z');
  const changed = new Date('2026-11-20T15:00:00Z');
  const held = (symbol: string, quantity: string, cost: string) => ({
    symbol,
    quantity: dec(quantity),
    average_cost: dec(cost),
    updated_at: changed,
  });
  const source = (broker: string[] | undefined): PriceSource => ({
    instrument: (symbol) => US_UNIVERSE.find((i) => i.symbol === symbol),
    instruments: () => [],
    ...(broker ? { has: (symbol: string) => broker.includes(symbol) } : {}),
    quote: (symbol, when) => ({ symbol, price: dec(symbol === 'VTI' ? '330' : '260'), as_of: when }),
  });
  const holdings = (prices: PriceSource) => {
    const v = value(prices, dec('100.00'), [held('VTI', '2', '300'), held('TSLA', '3', '250.505')], at);
    return [
      v.holdings.map((h) => [h.position.symbol, h.price.toFixed(), h.priceAsOf.toISOString(), h.marketValue.toFixed(2)]),
      v.total.toFixed(2),
    ];
  };

  it("prices a catalogue holding by the source, and one outside it by the source when it has the symbol (a broker's trade)", () => {
    expect(holdings(source(['TSLA']))).to.deep.equal([
      [
        ['VTI', '330', at.toISOString(), '660.00'],
        ['TSLA', '260', at.toISOString(), '780.00'],
      ],
      '1540.00',
    ]);
  });

  it('values one outside it at its average cost, as of its last change, when the source has no price of it or cannot say', () => {
    const atCost = [
      [
        ['VTI', '330', at.toISOString(), '660.00'],
        ['TSLA', '250.505', changed.toISOString(), '751.52'],
      ],
      '1511.52',
    ];
    expect(holdings(source([]))).to.deep.equal(atCost);
    expect(holdings(source(undefined))).to.deep.equal(atCost);
  });
});
