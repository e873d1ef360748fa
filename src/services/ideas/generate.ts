import type { components } from '../../../generated/api.js';
import { newId } from '../../ids.js';
import { ProblemError } from '../../problems.js';
import type { Services } from '../index.js';
import { readPaperAccount } from '../ledger.js';
import { accountState } from '../orders/account-state.js';
import { proposeOrders } from '../orders/propose.js';
import { getCurrentPolicy } from '../policies.js';
import { assertPaperMarket } from '../portfolio.js';
import { investCash, rebalance, type Proposal } from './allocation.js';
import { askAssistant } from './assistant.js';
import { gate } from './gate.js';
import { ideaView, type Idea } from './views.js';

type GenerateIdeasRequest = components['schemas']['GenerateIdeasRequest'];

export interface Actor {
  accountId: string;
  clientId: string;
}

export interface Generated {
  ideas: Idea[];
  /** Why nothing, or less than the engine wanted, was proposed. */
  notes: string[];
}

const NOTHING_TO_DO: Record<GenerateIdeasRequest['mode'], string> = {
  rebalance: 'Every weight is within the policy’s rebalance band: nothing to rebalance.',
  invest_cash: 'There is no idle cash worth investing (under 1 USD after the 0.5 % buffer).',
  assistant: 'The assistant proposed no orders.',
};

/**
 * Asks the engine `mode` selects for trades, keeps those that pass the policy check and stores them as one idea
 * of proposed orders, all in one transaction. No idea when there is nothing to do; the notes say why.
 */
export async function generateIdeas(services: Services, actor: Actor, request: GenerateIdeasRequest): Promise<Generated> {
  assertPaperMarket(request.market);
  const db = services.db.kysely;
  const policy = await getCurrentPolicy(db, actor.accountId);
  if (!policy) throw new ProblemError('policy-required', 'Ideas follow the account’s investment policy; create one with POST /v1/policies first.');
  const assistant = services.config.assistant;
  if (request.mode === 'assistant' && !assistant) {
    throw new ProblemError('assistant-not-configured', 'Mode assistant needs an LLM endpoint (ASSISTANT_BASE_URL), and none is configured.');
  }

  const now = services.clock.now();
  const account = await readPaperAccount(db, actor.accountId, services.config.paperStartingCash);
  const state = await accountState(db, services, actor.accountId, account.cash, now);
  const priceOf = (symbol: string) => services.prices.quote(symbol, now).price;
  let proposal: Proposal | null;
  if (request.mode === 'rebalance') proposal = rebalance(state, priceOf, policy, request.market);
  else if (request.mode === 'invest_cash') proposal = investCash(state, priceOf, policy, request.market);
  else proposal = await askAssistant(assistant!, { market: request.market, state, priceOf, policy, prices: services.prices, instructions: request.instructions });
  if (!proposal || proposal.trades.length === 0) {
    return { ideas: [], notes: [proposal?.rationale ? `${NOTHING_TO_DO[request.mode]} ${proposal.rationale}` : NOTHING_TO_DO[request.mode]] };
  }
  const { rationale, trades } = proposal;

  return db.transaction().execute(async (trx) => {
    const gated = await gate(trx, services, actor.accountId, policy, trades);
    if (gated.trades.length === 0) return { ideas: [], notes: ['No trade passed the policy check.', ...gated.notes] };
    // The id carries the wall-clock time of creation, so ideas list newest first even under a pinned service clock.
    const ideaId = newId('idea');
    const row = await trx
      .insertInto('ideas')
      .values({
        id: ideaId,
        account_id: actor.accountId,
        mode: request.mode,
        market: request.market,
        rationale: [rationale, ...gated.notes].join(' '),
        created_by_client_id: actor.clientId,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const orders = await proposeOrders(trx, services, { accountId: actor.accountId, clientId: actor.clientId, ideaId, trades: gated.trades });
    return { ideas: [ideaView(row, orders)], notes: gated.notes };
  });
}
