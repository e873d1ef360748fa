import { expect } from 'chai';
import { positionAfterFill } from '../../src/services/ledger.js';
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
