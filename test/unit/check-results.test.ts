// Every rule of the policy check and the risk gate as a preview shows it (policyChecks, riskChecks): passed or not,
// in words with the figures worked out by hand — what the person deciding reads before approving.
import { expect } from 'chai';
import type { components } from '../../generated/api.js';
import { policyChecks, riskChecks, type AccountState, type ProposedTrade } from '../../src/services/checks.js';
import type { Quote } from '../../src/services/market-data.js';
import { dec } from '../../src/services/money.js';

type Policy = components['schemas']['Policy'];

const now = new Date('2026-11-20T15:00:00Z');
const quote: Quote = { symbol: 'VTI', price: dec('100'), as_of: new Date(now.getTime() - 60_000) };
const limits = {
  max_order_notional: 5000,
  max_position_weight: 0.5,
  max_daily_notional: 8000,
  max_daily_loss: 1000,
  allowed_markets: ['US'],
};
const policy = { limits } as unknown as Policy;
const account: AccountState = {
  cash: dec('10000'),
  held: new Map([['VTI', dec('10')]]),
  totalValue: dec('20000'),
  tradedToday: dec('2000'),
};
const trade = (quantity: string, extra: Partial<ProposedTrade> = {}): ProposedTrade => ({
  market: 'US',
  symbol: 'VTI',
  side: 'buy',
  quantity: dec(quantity),
  order_type: 'market',
  limit_price: null,
  ...extra,
});
const said = (results: { check: string; passed: boolean; message: string }[]) => results.map((r) => [r.check, r.passed, r.message]);

describe('each check, passed or not, as a preview shows it', () => {
  it('a buy within every rule of the policy: each rule, in its order, with its figures', () => {
    // 10 held + 20 bought = 30 × 100.00 = 3 000 of 20 000: 15 %. 2 000 traded today + 2 000 = 4 000.
    expect(said(policyChecks(trade('20'), quote, policy, account))).to.deep.equal([
      ['policy.market', true, "Market US is among the policy's allowed markets."],
      ['policy.symbol_allowed', true, 'The policy allows any listed symbol.'],
      ['policy.symbol_blocked', true, 'VTI is not blocked by the policy.'],
      ['policy.max_order_notional', true, "Order notional 2000.00 is within the policy's maximum of 5000.00."],
      ['policy.max_position_weight', true, "VTI would be 15.00 % of the account, within the policy's 50.00 %."],
      ['policy.max_daily_notional', true, "Today's traded notional would be 4000.00, within the policy's daily maximum of 8000.00."],
    ]);
  });

  it('says how far over the day would go', () => {
    // 2 000 traded today + 61 × 100.00 = 8 100.00, over 8 000.00 (and the order over 5 000.00, the weight over 50 %).
    expect(said(policyChecks(trade('61'), quote, policy, account)).at(-1)).to.deep.equal([
      'policy.max_daily_notional',
      false,
      "Today's traded notional would be 8100.00, above the policy's daily maximum of 8000.00.",
    ]);
  });

  it('names the symbols a policy allows or blocks, and says a reducing sell is not held to them', () => {
    const listed = { limits: { ...limits, allowed_symbols: ['VTI'], blocked_symbols: ['BND'] } } as unknown as Policy;
    expect(said(policyChecks(trade('1'), quote, listed, account)).slice(1, 3)).to.deep.equal([
      ['policy.symbol_allowed', true, "VTI is among the policy's allowed symbols."],
      ['policy.symbol_blocked', true, 'VTI is not blocked by the policy.'],
    ]);
    const held = { ...account, held: new Map([['BND', dec('5')]]) };
    const sell = trade('5', { symbol: 'BND', side: 'sell', market: 'CA' });
    expect(said(policyChecks(sell, quote, listed, held)).slice(0, 3)).to.deep.equal([
      [
        'policy.market',
        true,
        "Market CA is not among the policy's allowed markets (US). A sell that reduces a position is not held to it.",
      ],
      ['policy.symbol_allowed', true, "BND is not among the policy's allowed symbols. A sell that reduces a position is not held to it."],
      ['policy.symbol_blocked', true, 'BND is blocked by the policy. A sell that reduces a position is not held to it.'],
    ]);
    // A sell checks no weight: it lowers the position.
    expect(policyChecks(sell, quote, listed, held).map((r) => r.check)).to.not.include('policy.max_position_weight');
    expect(said(policyChecks(trade('1', { symbol: 'BND' }), quote, listed, held)).slice(1, 3)).to.deep.equal([
      ['policy.symbol_allowed', false, "BND is not among the policy's allowed symbols."],
      ['policy.symbol_blocked', false, 'BND is blocked by the policy.'],
    ]);
  });

  it('the risk gate of a buy and of a sell, each rule with its figures', () => {
    expect(said(riskChecks(trade('20'), quote, account, now, false))).to.deep.equal([
      ['risk.buying_power', true, 'Buying needs up to 2000.00 and the account has 10000.00 in cash.'],
      ['risk.max_quantity', true, 'Orders are limited to 1000000 shares and 10000000.00 notional.'],
      ['risk.duplicate_order', true, 'No identical order was submitted in the last 60 seconds.'],
      ['risk.stale_price', true, 'The last price of VTI is 1 minutes old (at most 15 allowed).'],
    ]);
    const broker = { ...account, buyingPower: dec('1500') };
    expect(said(riskChecks(trade('20'), quote, broker, now, false))[0]).to.deep.equal([
      'risk.buying_power',
      false,
      'Buying needs up to 2000.00 but the broker states 1500.00 of buying power.',
    ]);
    expect(
      said(riskChecks(trade('4', { side: 'sell', order_type: 'limit', limit_price: dec('105') }), quote, account, now, false)).slice(0, 2),
    ).to.deep.equal([
      ['risk.position', true, 'Selling 4 VTI of the 10 the account holds.'],
      ['risk.price_collar', true, 'Limit 105.00 is 5.0 % from the last price 100.00 (collar 10 %).'],
    ]);
  });
});
