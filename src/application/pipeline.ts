import type { Logger } from 'pino';
import type { AuthorizationError } from '../auth/authorization-error.js';
import { authorizeCaller, type BearerOperationId, type Caller, type Origin } from '../auth/authorize.js';
import type { QuotaState } from '../compute/cpu-budget.js';
import type { Contract, ContractOperation, OperationInput } from '../contract/operations.js';
import type { ProblemError } from '../problems.js';
import type { FieldProblem } from '../services/errors.js';
import { Metered } from '../services/goals.js';
import type { Services } from '../services/index.js';
import { effects } from './effects.js';
import { classifyAndLog } from './failures.js';
import { fingerprintOf, type Answer, type Answered, type IdempotencyKeys } from './idempotency.js';
import { useCases, type Input, type Success, type UseCase } from './use-cases.js';

/**
 * One call of a bearer operation, as a channel hands it over: the channel and the caller it authenticated (a bearer
 * token's client over REST, GraphQL and MCP, a signed-in human in the dashboard; null without one: refused as
 * unauthorized).
 */
export type OperationCall<K extends BearerOperationId> = Caller & CallOf<K>;

interface CallOf<K extends BearerOperationId> {
  operationId: K;
  origin: Origin;
  log: Logger;
  /**
   * Reads the input, split as the contract declares it, once the caller is authorized (REST reads its body only
   * then: a caller without the scope learns nothing about what it sent). `found` are problems the channel found while
   * reading it (REST's integers not written as plain digits, MCP's unknown arguments).
   */
  input: () => (OperationInput & { found?: FieldProblem[] }) | Promise<OperationInput & { found?: FieldProblem[] }>;
  /** Whether the input's parameters are text to coerce to the contract's types (REST's path, query and headers). */
  text?: boolean;
  /** The call's Idempotency-Key, if it carries one (it applies to the operations that declare the header). */
  key?: string;
}

/** How a call ended, before any channel's shape. */
export type Outcome<K extends BearerOperationId> =
  { ok: true; value: Success<K>; quota?: QuotaState } | { ok: false; problem: ProblemError; authorization?: AuthorizationError };

/** A channel's shape for an outcome: what it sends, and what a key stores and replays. */
export type Present<K extends BearerOperationId> = (outcome: Outcome<K>, operation: ContractOperation) => Answer;

/**
 * The one pipeline every channel runs a bearer operation through: authorize (the scopes openapi.yaml declares, per
 * channel), read and validate the input against the contract, the Idempotency-Key, the use case of the operation
 * (`useCases`), and the classification of any failure. A channel translates its own shapes in (the call) and out
 * (`present`); no rule or guarantee lives in a channel.
 */
export class Pipeline {
  constructor(
    readonly contract: Contract,
    private readonly keys: IdempotencyKeys,
  ) {}

  async run<K extends BearerOperationId>(services: Services, call: OperationCall<K>, present: Present<K>): Promise<Answered> {
    const operation = this.contract.operation(call.operationId);
    let attempt: (bound: Services) => Promise<Outcome<K>>;
    let keyed: { path: Record<string, unknown>; body: unknown } | undefined;
    try {
      const actor = authorizeCaller(call, call.operationId, call.origin);
      const read = await call.input();
      const input = this.contract.check(call.operationId, read, { text: call.text, found: read.found });
      const useCase = useCases[call.operationId] as UseCase<K>;
      attempt = (bound) => this.attempt(() => useCase(bound, actor, input as unknown as Input<K>), call.log);
      if (call.key !== undefined && operation.keyed) keyed = { path: read.path ?? {}, body: read.body };
    } catch (error) {
      return { answer: present(this.failed(error, call.log), operation), replayed: false };
    }
    if (!keyed) return { answer: present(await attempt(services), operation), replayed: false };
    const actor = call.principal!;
    const request = {
      accountId: actor.accountId,
      clientId: actor.clientId,
      // REST's keys keep the scope they always had (the operationId); the other channels' are their own.
      operationId: call.channel === 'rest' ? call.operationId : `${call.channel}:${call.operationId}`,
      key: call.key!,
      fingerprint: fingerprintOf(operation, keyed.path, keyed.body),
    };
    try {
      if (effects[call.operationId] === 'read')
        return await this.keys.runComputation(services, request, async () => present(await attempt(services), operation));
      return await this.keys.run(services, request, async (bound) => present(await attempt(bound), operation));
    } catch (error) {
      // The key's own refusals (409 in use, 422 reused) and a database that failed around the use case.
      return { answer: present(this.failed(error, call.log), operation), replayed: false };
    }
  }

  private async attempt<K extends BearerOperationId>(run: () => ReturnType<UseCase<K>>, log: Logger): Promise<Outcome<K>> {
    try {
      const value = await run();
      return value instanceof Metered ? { ok: true, value: value.result as Success<K>, quota: value.budget } : { ok: true, value };
    } catch (error) {
      return this.failed(error, log);
    }
  }

  private failed(error: unknown, log: Logger): { ok: false; problem: ProblemError; authorization?: AuthorizationError } {
    const { problem, authorization } = classifyAndLog(error, log);
    return { ok: false, problem, authorization };
  }
}
