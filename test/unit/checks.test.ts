import { expect } from 'chai';
import type { components } from '../../generated/api.js';
import { policyCheck, riskGate, worstCaseNotional, type AccountState, type ProposedTrade } from '../../src/services/checks.js';
import type { Quote } from '../../src/services/market-data.js';
import { D, dec } from '../../src/services/money.js';

type Policy = components['schemas']['Policy'];

const now = new Date('2026-11-20T15:00:00Z');
const quote: Quote = { symbol: 'VTI', price: dec('100'), as_of: new Date(now.getTime() - 60_000) };
const policy = {
  limits: {
    max_order_notional: 5000,
    max_position_weight: 0.5,
    max_daily_notional: 8000,
    max_daily_loss: 1000,
    allowed_markets: ['US'],
    allowed_symbols: ['VTI', 'BND'],
    blocked_symbols: ['BND'],
  },
} as unknown as Policy;
const account: AccountState = {
  cash: dec('10000'),
  held: new Map([['VTI', dec('10')]]),
  totalValue: dec('20000'),
  tradedToday: dec('2000'),
};
const buy = (quantity: string, extra: Partial<ProposedTrade> = {}): ProposedTrade => ({
  market: 'US',
  symbol: 'VTI',
  side: 'buy',
  quantity: dec(quantity),
  order_type: 'market',
  limit_price: null,
  ...extra,
});
const checks = (failed: { check: string }[]) => failed.map((f) => f.check);

describe('policy check and risk gate rules, each passing and failing', () => {
  it('passes an order within every rule', () => {
    expect(policyCheck(buy('10'), quote, policy, account)).to.deep.equal([]);
    expect(riskGate(buy('10'), quote, account, now, false)).to.deep.equal([]);
  });

  const policyCases: [string, ProposedTrade, Partial<AccountState>?][] = [
    ['policy.market', buy('1', { market: 'CA' })],
    ['policy.symbol_allowed', buy('1', { symbol: 'AAPL' })],
    ['policy.symbol_blocked', buy('1', { symbol: 'BND' })],
    ['policy.max_order_notional', buy('51')],
    ['policy.max_position_weight', buy('45'), { held: new Map([['VTI', dec('60')]]) }],
    ['policy.max_daily_notional', buy('30'), { tradedToday: dec('6000') }],
  ];
  for (const [check, trade, state] of policyCases) {
    it(`fails ${check} alone`, () => {
      expect(checks(policyCheck(trade, quote, policy, { ...account, ...state }))).to.deep.equal([check]);
    });
  }

  it('lets a sell reduce or close a holding the policy no longer allows, and still refuses buying it or selling short', () => {
    const blocked = {
      ...account,
      held: new Map([
        ['BND', dec('10')],
        ['AAPL', dec('3')],
      ]),
    };
    expect(policyCheck(buy('10', { symbol: 'BND', side: 'sell' }), quote, policy, blocked)).to.deep.equal([]);
    expect(policyCheck(buy('3', { symbol: 'AAPL', side: 'sell' }), quote, policy, blocked)).to.deep.equal([]);
    expect(checks(policyCheck(buy('1', { symbol: 'BND' }), quote, policy, blocked))).to.deep.equal(['policy.symbol_blocked']);
    expect(checks(policyCheck(buy('11', { symbol: 'BND', side: 'sell' }), quote, policy, blocked))).to.deep.equal([
      'policy.symbol_blocked',
    ]);
    expect(
      checks(policyCheck(buy('60', { symbol: 'BND', side: 'sell' }), quote, policy, { ...blocked, held: new Map([['BND', dec('60')]]) })),
    ).to.deep.equal(['policy.max_order_notional']);
  });

  it('lets a sell lower a position whatever its weight', () => {
    expect(policyCheck(buy('5', { side: 'sell' }), quote, policy, { ...account, held: new Map([['VTI', dec('150')]]) })).to.deep.equal([]);
  });

  const riskCases: [string, ProposedTrade, Partial<AccountState>?, boolean?, Quote?][] = [
    ['risk.buying_power', buy('40'), { cash: dec('3999') }],
    ['risk.position', buy('11', { side: 'sell' })],
    ['risk.price_collar', buy('1', { order_type: 'limit', limit_price: dec('111') })],
    ['risk.max_quantity', buy('1000001'), { cash: dec('1e12') }],
    ['risk.duplicate_order', buy('1'), {}, true],
    ['risk.stale_price', buy('1'), {}, false, { ...quote, as_of: new Date(now.getTime() - 16 * 60_000) }],
  ];
  for (const [check, trade, state, duplicate, fresh] of riskCases) {
    it(`fails ${check} alone`, () => {
      expect(checks(riskGate(trade, fresh ?? quote, { ...account, ...state }, now, duplicate ?? false))).to.deep.equal([check]);
    });
  }

  it('takes a price exactly 15 minutes old as fresh, and one a millisecond older as stale', () => {
    const aged = (ms: number) => ({ ...quote, as_of: new Date(now.getTime() - ms) });
    expect(riskGate(buy('1'), aged(15 * 60_000), account, now, false)).to.deep.equal([]);
    expect(checks(riskGate(buy('1'), aged(15 * 60_000 + 1), account, now, false))).to.deep.equal(['risk.stale_price']);
  });

  it('asks no buying power of a sell: an account with no cash sells what it holds', () => {
    expect(riskGate(buy('10', { side: 'sell' }), quote, { ...account, cash: dec('0') }, now, false)).to.deep.equal([]);
  });

  it('accepts a limit inside the collar and prices a buy limit at its worst case for buying power', () => {
    expect(riskGate(buy('1', { order_type: 'limit', limit_price: dec('109') }), quote, account, now, false)).to.deep.equal([]);
    const exact = { ...account, cash: new D(109) };
    expect(riskGate(buy('1', { order_type: 'limit', limit_price: dec('109') }), quote, exact, now, false)).to.deep.equal([]);
    expect(
      checks(riskGate(buy('1', { order_type: 'limit', limit_price: dec('109') }), quote, { ...exact, cash: dec('108.99') }, now, false)),
    ).to.deep.equal(['risk.buying_power']);
  });

  it('says in each refusal what failed, with the figures worked out by hand', () => {
    const message = (failed: { check: string; message: string }[], check: string) => failed.find((f) => f.check === check)?.message;
    expect(
      message(
        policyCheck(buy('1', { market: 'CA' }), quote, { limits: { ...policy.limits, allowed_markets: ['US', 'DE'] } } as Policy, account),
        'policy.market',
      ),
    ).to.equal("Market CA is not among the policy's allowed markets (US, DE).");
    // 10 held + 95 bought = 105 × 100.00 = 10 500 of an account worth 20 000: 52.50 %, over the policy's 50 %.
    expect(message(policyCheck(buy('95'), quote, policy, account), 'policy.max_position_weight')).to.equal(
      "VTI would be 52.50 % of the account, above the policy's 50.00 %.",
    );
    // 111 against 100: 11.0 % from the last price, outside the collar of 10 %.
    expect(
      message(riskGate(buy('1', { order_type: 'limit', limit_price: dec('111') }), quote, account, now, false), 'risk.price_collar'),
    ).to.equal('Limit 111.00 is 11.0 % from the last price 100.00 (collar 10 %).');
    expect(message(riskGate(buy('1'), quote, account, now, true), 'risk.duplicate_order')).to.equal(
      'An identical buy of 1 VTI was submitted in the last 60 seconds.',
    );
    // The quote is 16 minutes old.
    expect(
      message(riskGate(buy('1'), { ...quote, as_of: new Date(now.getTime() - 16 * 60_000) }, account, now, false), 'risk.stale_price'),
    ).to.equal('The last price of VTI is 16 minutes old.');
    expect(message(riskGate(buy('1000001'), quote, { ...account, cash: dec('1e12') }, now, false), 'risk.max_quantity')).to.equal(
      'Orders are limited to 1000000 shares and 10000000.00 notional.',
    );
    expect(message(riskGate(buy('40'), quote, { ...account, cash: dec('3999') }, now, false), 'risk.buying_power')).to.equal(
      'Buying needs up to 4000.00 but the account has 3999.00 in cash.',
    );
    // A connected account: the broker's buying power, not the cash, is what a buy may spend.
    expect(
      message(riskGate(buy('40'), quote, { ...account, cash: dec('5000'), buyingPower: dec('3999.5') }, now, false), 'risk.buying_power'),
    ).to.equal('Buying needs up to 4000.00 but the broker states 3999.50 of buying power.');
    expect(riskGate(buy('40'), quote, { ...account, cash: dec('100'), buyingPower: dec('4000') }, now, false)).to.deep.equal([]);
  });
});

describe('the notional an order can cost at most', () => {
  it('is the limit for a buy limited above the price, else the last price (a sell limited above it is worth the price)', () => {
    const price = dec('100');
    expect(worstCaseNotional(buy('3', { order_type: 'limit', limit_price: dec('101.50') }), price).toFixed(2)).to.equal('304.50');
    expect(worstCaseNotional(buy('3', { order_type: 'limit', limit_price: dec('99') }), price).toFixed(2)).to.equal('300.00');
    expect(worstCaseNotional(buy('3'), price).toFixed(2)).to.equal('300.00');
    expect(worstCaseNotional(buy('3', { side: 'sell', order_type: 'limit', limit_price: dec('101.50') }), price).toFixed(2)).to.equal(
      '300.00',
    );
  });
});
