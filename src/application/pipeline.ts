import type { Logger } from 'pino';
import type { AuthorizationError } from '../auth/authorization-error.js';
import {
  authorize,
  authorizeCaller,
  type ActorOperation,
  type BearerOperationId,
  type Caller,
  type HumanPrincipal,
  type Origin,
} from '../auth/authorize.js';
import type { Quota } from '../compute/cpu-budget.js';
import { Contract, type ContractOperation, type OperationInput } from '../contract/operations.js';
import type { Document } from 'openapi-backend';
import type { ProblemError } from '../problems.js';
import type { FieldProblem } from '../services/errors.js';
import { Metered } from '../services/goals.js';
import type { Services } from '../services/index.js';
import {
  dashboardActions,
  type ActionInput,
  type ActionValue,
  type DashboardActionName,
  type DashboardUseCase,
} from './dashboard-actions.js';
import { effects } from './effects.js';
import { classifyAndLog, classifyError } from './failures.js';
import { fingerprintOf, IdempotencyKeys, type Answer, type Answered } from './idempotency.js';
import {
  checkAnonymous,
  personUseCases,
  type PersonCaller,
  type PersonOperationId,
  type PersonUseCase,
  type PersonValue,
} from './people.js';
import { observeOutcome, observeReplay } from '../observability/outcomes.js';
import { step, type StepOf } from '../observability/tracing.js';
import { preparations, useCases, type Input, type Preparation, type Success, type UseCase } from './use-cases.js';

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
export type Result<V> = { ok: true; value: V; quota?: Quota } | { ok: false; problem: ProblemError; authorization?: AuthorizationError };
export type Outcome<K extends BearerOperationId> = Result<Success<K>>;
type Failed = Extract<Result<unknown>, { ok: false }>;

/** A channel's shape for an outcome: what it sends, and what a key stores and replays. */
export type Present<K extends BearerOperationId> = (outcome: Outcome<K>, operation: ContractOperation) => Answer;

/** A dashboard action as the dashboard hands it over: the signed-in human, the action, its input. */
export interface ActionCall<A extends DashboardActionName> {
  action: A;
  principal: HumanPrincipal | null;
  origin: Origin;
  log: Logger;
  input: ActionInput<A>;
}

/** An anonymous operation of a person as a channel hands it over (no principal: anyone may call it). */
export interface PersonCall<K extends PersonOperationId> extends PersonCaller {
  operationId: K;
  log: Logger;
  input: OperationInput;
}

/**
 * The one pipeline every channel — REST, GraphQL, MCP and the dashboard — runs a bearer operation through: authorize
 * (the scopes openapi.yaml declares, per channel), read and validate the input against the contract, the
 * Idempotency-Key, the use case of the operation (`useCases`), and the classification of any failure. The dashboard's
 * own actions (`act`) and a person's anonymous operations (`runAnonymous`) take the same steps that apply to them. A
 * channel translates its own shapes in (the call) and out (`present`); no rule or guarantee lives in a channel.
 */
export class Pipeline {
  constructor(
    readonly contract: Contract,
    private readonly keys: IdempotencyKeys,
  ) {}

  /** The pipeline of a service: the contract's one validator, one store of Idempotency-Keys kept `retentionMs`. */
  static of(document: Document, retentionMs: number): Pipeline {
    return new Pipeline(new Contract(document), new IdempotencyKeys(retentionMs));
  }

  async run<K extends BearerOperationId>(services: Services, call: OperationCall<K>, present: Present<K>): Promise<Answered> {
    const operation = this.contract.operation(call.operationId);
    let attempt: (bound: Services) => Promise<Outcome<K>>;
    let keyed: { path: Record<string, unknown>; body: unknown } | undefined;
    let prepare: (() => Promise<void>) | undefined;
    try {
      // Each step is a span of the request's trace when tracing is on (docs/tracing.md).
      const actor = step('authorize', call, () => authorizeCaller(call, call.operationId, call.origin), refusal);
      const { read, input } = await step(
        'validate',
        call,
        async () => {
          const read = await call.input();
          return {
            read,
            input: this.contract.check(call.operationId, read, { text: call.text, found: read.found }) as unknown as Input<K>,
          };
        },
        refusal,
      );
      const useCase = useCases[call.operationId] as UseCase<K>;
      let prepared: { value?: Parameters<UseCase<K>>[3]; error?: unknown } = {};
      attempt = (bound) =>
        this.attempt(
          () => {
            if ('error' in prepared) throw prepared.error;
            return useCase(bound, actor, input, prepared.value);
          },
          call.log,
          call,
        );
      if (call.key !== undefined && operation.keyed) {
        keyed = { path: read.path ?? {}, body: read.body };
        const preparation = (preparations as unknown as Partial<Record<BearerOperationId, Preparation<K>>>)[call.operationId];
        if (preparation)
          prepare = () =>
            preparation(services, actor, input).then(
              (value) => void (prepared = { value }),
              (error: unknown) => void (prepared = { error }),
            );
      }
    } catch (error) {
      return { answer: present(this.failed(error, call.log), operation), replayed: false };
    }
    if (!keyed) {
      const outcome = await attempt(services);
      observeOutcome(call.operationId, outcome);
      return { answer: present(outcome, operation), replayed: false };
    }
    // Outside systems are read before the key's transaction, which holds a connection from its first statement.
    if (prepare) await step('prepare', call, prepare);
    const actor = call.principal!;
    const request = {
      accountId: actor.accountId,
      clientId: actor.clientId,
      // REST's keys keep the scope they always had (the operationId); the other channels' are their own.
      operationId: call.channel === 'rest' ? call.operationId : `${call.channel}:${call.operationId}`,
      key: call.key!,
      fingerprint: fingerprintOf(operation, keyed.path, keyed.body),
    };
    // What the use case decided, counted once the key's answer is (a replay decided nothing: it is counted as one).
    let decided: Outcome<K> | undefined;
    const decide = async (bound: Services) => present((decided = await attempt(bound)), operation);
    try {
      const answered = await step(
        'idempotency',
        call,
        () =>
          effects[call.operationId] === 'read'
            ? this.keys.runComputation(services, request, () => decide(services))
            : this.keys.run(services, request, decide),
        refusal,
      );
      if (answered.replayed) observeReplay(call.channel);
      else if (decided) observeOutcome(call.operationId, decided);
      return answered;
    } catch (error) {
      // The key's own refusals (409 in use, 422 reused) and a database that failed around the use case.
      return { answer: present(this.failed(error, call.log), operation), replayed: false };
    }
  }

  /**
   * A dashboard action (no operation of the contract: `dashboardActions`), through the same steps: authorize (the
   * dashboard channel only: no API token reaches one), the action's use case, the classification of any failure.
   */
  async act<A extends DashboardActionName>(
    services: Services,
    call: ActionCall<A>,
    present: (result: Result<ActionValue<A>>) => Answer,
  ): Promise<Answer> {
    const useCase = dashboardActions[call.action] as unknown as DashboardUseCase<ActorOperation, ActionInput<A>, ActionValue<A>>;
    return present(
      await this.attempt(
        () => useCase.run(services, authorize(call.principal, useCase.authorizedAs, call.origin, 'dashboard'), call.input),
        call.log,
        { operationId: call.action, channel: 'dashboard' },
      ),
    );
  }

  /**
   * An anonymous operation of a person (sign-up, log-in, contact, a challenge): the contract's validator (its
   * proof-of-work header first: `checkAnonymous`), the operation's use case (`personUseCases`), the classification of
   * any failure. Nothing to authorize, no Idempotency-Key.
   */
  async runAnonymous<K extends PersonOperationId>(
    services: Services,
    call: PersonCall<K>,
    present: (result: Result<PersonValue<K>>, operation: ContractOperation) => Answer,
  ): Promise<Answer> {
    const operation = this.contract.operation(call.operationId);
    const useCase = personUseCases[call.operationId] as PersonUseCase<K>;
    return present(
      await this.attempt(
        () => {
          const input = checkAnonymous(this.contract, call.operationId, call.input);
          return useCase(services, call, input);
        },
        call.log,
        call,
      ),
      operation,
    );
  }

  /** The use case, as the span `use case <operationId>`; whatever it throws is classified. */
  private async attempt<V>(run: () => V | Metered<V> | Promise<V | Metered<V>>, log: Logger, of: StepOf): Promise<Result<V>> {
    try {
      const value = await step('use case', of, run, refusal);
      return value instanceof Metered ? { ok: true, value: value.result, quota: value.budget } : { ok: true, value };
    } catch (error) {
      return this.failed(error, log);
    }
  }

  private failed(error: unknown, log: Logger): Failed {
    const { problem, authorization } = classifyAndLog(error, log);
    return { ok: false, problem, authorization };
  }
}

/** A failure the caller is answered for (a problem not worth logging): its type; anything else fails the step's span. */
function refusal(error: unknown): string | undefined {
  const classified = classifyError(error);
  return classified.log === 'none' ? classified.problem.slug : undefined;
}
