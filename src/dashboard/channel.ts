import type { Response } from 'express';
import type { Logger } from 'pino';
import type { ActionInput, ActionValue, DashboardActionName } from '../application/dashboard-actions.js';
import type { PersonOperationId, PersonValue } from '../application/people.js';
import type { Pipeline } from '../application/pipeline.js';
import type { Success } from '../application/use-cases.js';
import { humanPrincipal, type BearerOperationId, type Origin } from '../auth/authorize.js';
import type { OperationInput } from '../contract/operations.js';
import type { Services } from '../services/index.js';
import { presentHtml, shownOf, type FieldLabels, type Shown } from './present.js';

/** An action's input and the form's labels (an action that takes nothing takes no input). */
type Given<A extends DashboardActionName> =
  undefined extends ActionInput<A> ? [input?: ActionInput<A>, labels?: FieldLabels] : [input: ActionInput<A>, labels?: FieldLabels];

/**
 * What a page does, for one request's visitor: every call runs through the application's pipeline as the `dashboard`
 * channel (the signed-in human, or nobody) and comes back as the page shows it (`Shown`: the value, or the form's
 * error; a failure of the service throws `PageFailure`, for the error page). `labels` name the form's fields.
 */
export interface Calls {
  /** An operation of the contract: authorize, validate (the contract's validator), the use case, classify. */
  operation<K extends BearerOperationId>(operationId: K, input?: OperationInput, labels?: FieldLabels): Promise<Shown<Success<K>>>;
  /** A dashboard action (`dashboardActions`): authorize, the use case, classify. */
  action<A extends DashboardActionName>(action: A, ...given: Given<A>): Promise<Shown<ActionValue<A>>>;
  /** An anonymous operation (sign-up, log-in, contact, a challenge): validate, the use case, classify. */
  anonymous<K extends PersonOperationId>(operationId: K, input: OperationInput, labels?: FieldLabels): Promise<Shown<PersonValue<K>>>;
}

/**
 * The dashboard as the fourth channel: it turns a page's call into the pipeline's and presents the outcome as HTML
 * wants it (present.ts). Sessions, CSRF tokens and the one-time flash are its own transport (visitor.ts).
 */
export class DashboardChannel {
  constructor(
    private readonly pipeline: Pipeline,
    private readonly services: Services,
  ) {}

  /**
   * The calls of one request, for its visitor: the signed-in person's account (none before log-in), where they are,
   * and their session token (the session a log-in replaces). No key: the dashboard's forms redirect after a POST.
   */
  callsFor(accountId: string | undefined, origin: Origin, sessionToken: string | undefined, log: Logger): Calls {
    const { pipeline, services } = this;
    const principal = accountId === undefined ? null : humanPrincipal(accountId);
    return {
      operation: async (operationId, input = {}, labels) => {
        const call = { operationId, channel: 'dashboard' as const, principal, origin, log, input: () => input };
        return shownOf((await pipeline.run(services, call, presentHtml(labels))).answer);
      },
      action: async (action, ...[input, labels]) =>
        shownOf(
          await pipeline.act(services, { action, principal, origin, log, input: input as ActionInput<typeof action> }, presentHtml(labels)),
        ),
      anonymous: async (operationId, input, labels) => {
        // A log-in ends the session this browser held, if any: a login never keeps an old token.
        const call = { operationId, origin, replacing: sessionToken, log, input };
        return shownOf(await pipeline.runAnonymous(services, call, presentHtml(labels)));
      },
    };
  }
}

/** The calls of the request `res` answers (set when its visitor is loaded). */
export function callsOf(res: Response): Calls {
  return (res.locals as { calls: Calls }).calls;
}
