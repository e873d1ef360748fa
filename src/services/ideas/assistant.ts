import Ajv2020 from 'ajv/dist/2020.js';
import type { components } from '../../../generated/api.js';
import type { AssistantConfig } from '../../config.js';
import { ProblemError } from '../../problems.js';
import type { AccountState } from '../checks.js';
import type { PriceSource } from '../market-data.js';
import { dec, num, roundMoney, roundQuantity } from '../money.js';
import type { PriceOf, Proposal } from './allocation.js';

type Policy = components['schemas']['Policy'];

export const MAX_ASSISTANT_ORDERS = 20;

/** What the LLM must answer. Closed objects and bounds: anything else is refused, never repaired. */
const OUTPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['rationale', 'orders'],
  properties: {
    rationale: { type: 'string', minLength: 1, maxLength: 4000 },
    orders: {
      type: 'array',
      maxItems: MAX_ASSISTANT_ORDERS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['symbol', 'side', 'quantity', 'order_type'],
        properties: {
          symbol: { type: 'string', minLength: 1, maxLength: 16 },
          side: { enum: ['buy', 'sell'] },
          quantity: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 },
          order_type: { enum: ['market', 'limit'] },
          limit_price: { anyOf: [{ type: 'number', exclusiveMinimum: 0, maximum: 10_000_000 }, { type: 'null' }] },
        },
        if: { properties: { order_type: { const: 'limit' } } },
        then: { required: ['limit_price'], properties: { limit_price: { type: 'number' } } },
        else: { properties: { limit_price: { type: 'null' } } },
      },
    },
  },
} as const;

interface AssistantOutput {
  rationale: string;
  orders: { symbol: string; side: 'buy' | 'sell'; quantity: number; order_type: 'market' | 'limit'; limit_price?: number | null }[];
}

const validateOutput = new Ajv2020.default({ allErrors: true, strict: true }).compile<AssistantOutput>(OUTPUT_SCHEMA);

const SYSTEM_PROMPT = [
  'You propose trades for a paper investment account. Answer with exactly one JSON object and nothing else:',
  '{"rationale": string, "orders": [{"symbol": string, "side": "buy" | "sell", "quantity": number > 0 (shares, up to 6 decimals),',
  `"order_type": "market" | "limit", "limit_price": number > 0 for limit orders, else omitted}]} with at most ${MAX_ASSISTANT_ORDERS} orders.`,
  'Use only symbols of the tradable universe. Respect the policy limits and the cash available; orders that break',
  'the policy are dropped. Sells cannot exceed the quantity held. Return an empty "orders" array when nothing should be done.',
].join(' ');

export interface AssistantInput {
  market: string;
  state: AccountState;
  priceOf: PriceOf;
  policy: Policy;
  prices: PriceSource;
  instructions: string | undefined;
}

function userPrompt(input: AssistantInput): string {
  const { state, priceOf, policy } = input;
  const context = {
    market: input.market,
    currency: 'USD',
    portfolio: {
      cash: num(state.cash),
      total_value: num(state.totalValue),
      holdings: [...state.held].map(([symbol, quantity]) => {
        const value = roundMoney(quantity.times(priceOf(symbol)));
        return {
          symbol,
          quantity: num(quantity),
          price: num(priceOf(symbol)),
          market_value: num(value),
          weight: num(value.dividedBy(state.totalValue).toDecimalPlaces(4)),
        };
      }),
    },
    policy: {
      version: policy.version,
      limits: policy.limits,
      target_allocation: policy.target_allocation,
      rebalance_band: policy.rebalance_band,
    },
    tradable_universe: input.prices
      .instruments(input.market)
      .map((i) => ({ symbol: i.symbol, name: i.name, asset_class: i.asset_class, price: num(priceOf(i.symbol)) })),
  };
  const instructions = input.instructions ? `\n\nInstructions from the account holder:\n${input.instructions}` : '';
  return `Account context (JSON):\n${JSON.stringify(context)}${instructions}`;
}

const failed = (detail: string): ProblemError => new ProblemError('assistant-failed', `The assistant ${detail} Nothing was stored.`);

async function complete(config: AssistantConfig, input: AssistantInput): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${config.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
      body: JSON.stringify({
        model: config.model,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: userPrompt(input) },
        ],
        response_format: { type: 'json_object' },
        temperature: 0,
      }),
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch (error) {
    throw (error as Error).name === 'TimeoutError'
      ? failed(`did not answer within ${config.timeoutMs} ms.`)
      : failed('endpoint could not be reached.');
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw failed(`endpoint answered HTTP ${response.status} without a JSON body.`);
  }
  if (!response.ok) throw failed(`endpoint answered HTTP ${response.status}.`);
  const content = (body as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw failed('endpoint answered without choices[0].message.content.');
  return content;
}

/** Asks the configured LLM for trades; its output is parsed and validated, and any failure is a 502. */
export async function askAssistant(config: AssistantConfig, input: AssistantInput): Promise<Proposal | null> {
  const content = await complete(config, input);
  let output: unknown;
  try {
    output = JSON.parse(content);
  } catch {
    throw failed('answered with content that is not JSON.');
  }
  if (!validateOutput(output)) {
    const errors = (validateOutput.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw failed(`answered with output that does not match the expected shape: ${errors.join('; ')}.`);
  }
  const unknown = output.orders.map((o) => o.symbol).filter((symbol) => input.prices.instrument(symbol)?.market !== input.market);
  if (unknown.length > 0) throw failed(`proposed symbols outside the ${input.market} universe: ${[...new Set(unknown)].join(', ')}.`);
  if (output.orders.length === 0) return null;
  return {
    rationale: output.rationale.trim() || 'Proposed by the assistant.',
    trades: output.orders.map((o) => ({
      market: input.market,
      symbol: o.symbol,
      side: o.side,
      quantity: roundQuantity(dec(o.quantity)),
      order_type: o.order_type,
      limit_price: o.order_type === 'limit' && typeof o.limit_price === 'number' ? roundMoney(dec(o.limit_price)) : null,
    })),
  };
}
