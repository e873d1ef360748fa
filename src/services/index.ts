import type { CompiledQuery } from 'kysely';
import type { Document } from 'openapi-backend';
import type { Config } from '../config.js';
import type { Db } from '../../db/connect.js';
import { loadHmacKey } from '../auth/hmac-keys.js';
import { loadSigningKey } from '../auth/keys.js';
import { SecretHasher } from '../auth/secrets.js';
import { TokenService } from '../auth/tokens.js';
import { systemClock, type Clock } from '../clock.js';
import { CPU_POLICY, CPU_WINDOW_MS, CpuBudget } from '../compute/cpu-budget.js';
import { AccountQuotas, QUOTA_WINDOW_MS, type QuotaName } from './quotas.js';
import { ComputePool } from '../compute/pool.js';
import { activeMetrics } from '../observability/metrics.js';
import { loadDocument } from '../document.js';
import { MemoryWindowCounter, type WindowCounter } from '../counters/window-counters.js';
import { realBrokers, type BrokerFactory } from '../brokers/connection.js';
import { BrokerConnections } from './broker-connections.js';
import { BrokerService } from './brokers.js';
import { PAPER_ONLY, type BrokerDirectory } from './brokerage/directory.js';
import { BrokerSync } from './brokerage/sync.js';
import { haltAtBroker } from './brokerage/halt.js';
import { ChallengeService } from './challenges.js';
import { EventService } from './events/service.js';
import { ClientService } from './clients.js';
import type { ServiceContext } from './context.js';
import { FailureCounters } from './failures.js';
import { GoalService } from './goals.js';
import { IdeaService } from './ideas/service.js';
import { KillSwitchService } from './kill-switch.js';
import { paperLockWarmUp } from './ledger.js';
import { KillSwitchNames } from './kill-switch-names.js';
import { SimulatedPriceSource, type PriceSource } from './market-data.js';
import { MetaService } from './meta.js';
import { OAuthService } from './oauth.js';
import { OrderService } from './orders/service.js';
import { rehearseApprovals, type RehearsalPlan } from './orders/rehearsal.js';
import { approvalReadWarmUp } from './orders/trigger-state.js';
import { PeopleService } from './people.js';
import { PolicyService } from './policies.js';
import { PortfolioService } from './portfolio.js';
import { ReportService } from './reports/daily.js';
import { SessionService } from './sessions.js';
import { Store } from './store.js';
import { WebhookEndpoints } from './webhooks/endpoints.js';
import { ValueHistory } from './value-history.js';
import { ChecklistMarks } from './checklist-marks.js';

/**
 * Every use case, bound to its database, clock, prices and configuration: the application's use-case table (for
 * REST, GraphQL and MCP), REST's own handlers and the dashboard pass only the caller and the input. One per process;
 * no request state.
 */
export interface Services {
  goals: GoalService;
  /** What one account may do a minute (idea generations, policy versions, …), over every client and instance. */
  quotas: AccountQuotas;
  policies: PolicyService;
  portfolio: PortfolioService;
  brokers: BrokerService;
  /** Accounts' connections to real brokers and their ports (signed-in humans and operators connect them). */
  brokerConnections: BrokerConnections;
  /** Keeps connected accounts in step with their brokers (streams, sending, polling); the server starts it. */
  brokerSync: BrokerSync;
  ideas: IdeaService;
  orders: OrderService;
  killSwitch: KillSwitchService;
  /** The kill switch as people read it (the dashboard): who by name, and its history. */
  killSwitchNames: KillSwitchNames;
  /** The account's value over time, from the ledger (the dashboard's chart). */
  valueHistory: ValueHistory;
  /** What a new person has done of the first-hour checklist that no other record shows (following the docs link). */
  checklist: ChecklistMarks;
  reports: ReportService;
  events: EventService;
  oauth: OAuthService;
  meta: MetaService;
  clients: ClientService;
  tokens: TokenService;
  challenges: ChallengeService;
  people: PeopleService;
  sessions: SessionService;
  /** Webhook endpoints and their deliveries (an account's channels, and operators). */
  webhooks: WebhookEndpoints;
  /**
   * Runs `work` with every use case bound to one transaction: what they write commits together with whatever
   * `work` writes through `store`, or not at all; `store.onCommit` hooks run after the commit.
   */
  transaction<T>(work: (services: Services, store: Store) => Promise<T>): Promise<T>;
  /**
   * The hot paths' statements (an approval's lock and read), with values that match nothing, for the pool to prepare on each
   * connection before the service says ready.
   */
  hotStatements(): CompiledQuery[];
  /**
   * Runs the approval path end to end in transactions that roll back, on every connection of the pool, before the
   * service says ready (orders/rehearsal.ts); answers the approvals rehearsed.
   */
  rehearseApprovals(plan: RehearsalPlan): Promise<number>;
  /** Stops what the use cases hold besides the database (the compute pool's threads); for a server's drain. */
  close(): Promise<void>;
}

/** What tests (or another deployment) may replace: the clock, the price source and the brokers' adapters. */
export interface ServiceOverrides {
  clock?: Clock;
  prices?: PriceSource;
  /** Makes a connected account's broker port (default: the real adapters, `realBrokers`). */
  brokerFactory?: BrokerFactory;
}

/**
 * Where budgets shared across instances keep their counts: the server's RateLimitStores (Redis when REDIS_URL is
 * set). Without one (scripts, the CLI) each process counts in memory.
 */
export interface SharedCounters {
  counter(name: string, windowMs: number): WindowCounter;
}
const processCounters: SharedCounters = { counter: (_name, windowMs) => new MemoryWindowCounter(windowMs) };

export async function createServices(
  config: Config,
  db: Db,
  overrides: ServiceOverrides = {},
  document: Document = loadDocument(),
  counters: SharedCounters = processCounters,
): Promise<Services> {
  // One hasher for client secrets and passwords: bcrypt's share of the thread pool is governed in one place.
  const hasher = new SecretHasher(config.bcryptCost, config.bcryptConcurrency, config.bcryptWaitMs);
  const clients = new ClientService(db.kysely, hasher, config.clientStatusCacheMs);
  const signingKey = await loadSigningKey(db.kysely, config.signingKeyPem);
  const tokens = new TokenService(signingKey, config.baseUrl, config.baseUrl, config.tokenTtlSeconds, clients);
  const oauth = new OAuthService(config.baseUrl, clients, tokens, signingKey);
  const clock = overrides.clock ?? systemClock;
  // Failure counts, solved challenges and sessions live outside any request transaction: a refused attempt
  // still counts, and a consumed challenge stays consumed, whatever happens to the rest of the request.
  const failures = new FailureCounters(db.kysely);
  const challenges = new ChallengeService(
    db.kysely,
    await loadHmacKey(db.kysely, 'challenge', config.challengeSecret),
    clock,
    config.powDifficulty,
    failures,
  );
  const sessions = new SessionService(db.kysely, clock, await loadHmacKey(db.kysely, 'csrf'));
  const prices = overrides.prices ?? new SimulatedPriceSource();
  const meta = new MetaService({ store: new Store(db.kysely), clock, prices, brokers: PAPER_ONLY, config }, document);
  // Heavy computations: one pool of threads per process, and each client's CPU budget in the shared counters.
  const compute = new ComputePool({
    threads: config.computeThreads,
    queueLength: config.computeQueueLength,
    deadlineMs: config.requestTimeoutMs,
  });
  const unobserveCompute = activeMetrics()?.sample('ias_compute_queue_length', () => [{ value: compute.waiting }]);
  const budget = new CpuBudget(counters.counter(CPU_POLICY, CPU_WINDOW_MS), config.cpuBudgetMsPerMinute);
  const quotaCounters = new Map(
    (Object.keys(config.accountQuotas) as QuotaName[]).map((name) => [name, counters.counter(`account-${name}`, QUOTA_WINDOW_MS)]),
  );
  const quotas = new AccountQuotas((name) => quotaCounters.get(name)!, config.accountQuotas);
  const webhookRules = { allowPrivateNetworks: config.webhooks.allowPrivateNetworks, retentionDays: config.eventRetentionDays };
  // One per process: it keeps each connected account's port between requests.
  const brokerConnections = new BrokerConnections(db.kysely, clock, config.brokers, overrides.brokerFactory ?? realBrokers);

  // One sync per process, bound to the root store (the first binding): a transaction's binding shares it.
  let rootSync: BrokerSync | undefined;
  brokerConnections.onTouched = (accountId) => rootSync?.watch(accountId);
  const bind = (store: Store): Services => {
    // The broker of an account, read on the binding's own store (a keyed call's transaction, on the embedded database
    // its one connection).
    const brokers: BrokerDirectory = {
      portFor: (accountId) => brokerConnections.portFor(accountId, store.db),
      touched: (accountId) => brokerConnections.touched(accountId),
    };
    const ctx: ServiceContext = { store, clock, prices, brokers, config };
    const services: Services = {
      goals: new GoalService(compute, budget),
      quotas,
      policies: new PolicyService(ctx),
      portfolio: new PortfolioService(ctx),
      brokers: new BrokerService(brokerConnections),
      brokerConnections,
      ideas: new IdeaService(ctx),
      orders: new OrderService(ctx),
      killSwitch: new KillSwitchService(ctx, async (accountId, engaged) => {
        const port = await brokers.portFor(accountId);
        if (port) await haltAtBroker(ctx, accountId, port, engaged);
      }),
      killSwitchNames: new KillSwitchNames(() => store.db),
      valueHistory: new ValueHistory(ctx),
      checklist: new ChecklistMarks(() => store.db, clock),
      reports: new ReportService(ctx),
      events: new EventService(ctx),
      oauth,
      meta,
      clients,
      tokens,
      challenges,
      people: new PeopleService(ctx, { challenges, failures, sessions, hasher }),
      sessions,
      webhooks: new WebhookEndpoints(store, clock, webhookRules),
      transaction: (work) => store.transaction((_trx, bound) => work(bind(bound), bound)),
      hotStatements: () => [paperLockWarmUp(db.kysely), approvalReadWarmUp(db.kysely)],
      rehearseApprovals: (plan) => rehearseApprovals(services, { clock, prices }, plan),
      brokerSync: (rootSync ??= new BrokerSync(ctx, brokerConnections)),
      close: () => {
        unobserveCompute?.();
        return compute.close();
      },
    };
    return services;
  };
  return bind(new Store(db.kysely));
}
