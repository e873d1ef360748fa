// Generated from schema.graphql by scripts/generate.mjs (graphql-codegen typescript + typescript-resolvers). Do not edit.
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../src/graphql/context.js';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
};

export type Query = {
  __typename?: 'Query';
  /** The portfolio of a market (the paper broker's, or the connected broker's): cash, holdings, market value, each price with its time. */
  portfolio?: Maybe<Portfolio>;
  /** The account's orders, newest first, optionally filtered. */
  orders?: Maybe<OrderList>;
  /** One order with its events. */
  order?: Maybe<Order>;
  /** The account's ideas, newest first, with their orders. */
  ideas?: Maybe<IdeaList>;
  /** One idea with its orders. */
  idea?: Maybe<Idea>;
  /** The account's policy versions, newest first. */
  policies?: Maybe<PolicyList>;
  /** The policy in force (its newest version). */
  currentPolicy?: Maybe<Policy>;
  /** One version of the account's policy. */
  policy?: Maybe<Policy>;
  /** The disclosure a new policy's consent must name. */
  disclosure?: Maybe<Disclosure>;
  /** Generated daily reports, newest date first, within an inclusive date range. */
  dailyReports?: Maybe<DailyReportList>;
  /** The generated daily report of a date. */
  dailyReport?: Maybe<DailyReport>;
  /** The broker catalogue with each broker's capabilities; `active` for the paper broker and the one the account is connected to. */
  brokers?: Maybe<BrokerList>;
  /** The kill switch in force for the account. */
  killSwitch?: Maybe<KillSwitch>;
  /** The account's events, oldest first, in the order they became visible; follow `next_cursor` (never null). */
  events?: Maybe<EventList>;
  /** One event of the account. */
  event?: Maybe<Event>;
  /** The account's webhook endpoints, newest first (never their secrets). */
  webhookEndpoints?: Maybe<WebhookEndpointList>;
  /** One webhook endpoint of the account. */
  webhookEndpoint?: Maybe<WebhookEndpoint>;
  /** A webhook endpoint's delivery attempts, newest first: event, time, status answered, duration, error. */
  webhookEndpointDeliveries?: Maybe<WebhookDeliveryAttemptList>;
  /** Required growth rate, probability of reaching the target, and suggestions. */
  goalFeasibility?: Maybe<GoalFeasibilityResult>;
};


export type QueryPortfolioArgs = {
  market?: InputMaybe<Scalars['String']['input']>;
};


export type QueryOrdersArgs = {
  status?: InputMaybe<OrderStatus>;
  symbol?: InputMaybe<Scalars['String']['input']>;
  idea_id?: InputMaybe<Scalars['ID']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  cursor?: InputMaybe<Scalars['String']['input']>;
};


export type QueryOrderArgs = {
  id: Scalars['ID']['input'];
};


export type QueryIdeasArgs = {
  mode?: InputMaybe<IdeaMode>;
  market?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  cursor?: InputMaybe<Scalars['String']['input']>;
};


export type QueryIdeaArgs = {
  id: Scalars['ID']['input'];
};


export type QueryPoliciesArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  cursor?: InputMaybe<Scalars['String']['input']>;
};


export type QueryPolicyArgs = {
  version: Scalars['Int']['input'];
};


export type QueryDailyReportsArgs = {
  from?: InputMaybe<Scalars['String']['input']>;
  to?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  cursor?: InputMaybe<Scalars['String']['input']>;
};


export type QueryDailyReportArgs = {
  date: Scalars['String']['input'];
};


export type QueryBrokersArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  cursor?: InputMaybe<Scalars['String']['input']>;
};


export type QueryEventsArgs = {
  type?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  cursor?: InputMaybe<Scalars['String']['input']>;
};


export type QueryEventArgs = {
  id: Scalars['ID']['input'];
};


export type QueryWebhookEndpointsArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  cursor?: InputMaybe<Scalars['String']['input']>;
};


export type QueryWebhookEndpointArgs = {
  id: Scalars['ID']['input'];
};


export type QueryWebhookEndpointDeliveriesArgs = {
  id: Scalars['ID']['input'];
  limit?: InputMaybe<Scalars['Int']['input']>;
  cursor?: InputMaybe<Scalars['String']['input']>;
};


export type QueryGoalFeasibilityArgs = {
  input: GoalFeasibilityRequest;
};

export type Mutation = {
  __typename?: 'Mutation';
  /** Creates the next version of the account's policy; needs e-consent to the current disclosure. */
  createPolicy?: Maybe<Policy>;
  /** Asks the engine of `mode` for trades and stores them as an idea of proposed orders. */
  generateIdeas?: Maybe<GenerateIdeasResponse>;
  /** What approving a proposed order would do now: every check it runs, at a fresh price; changes nothing. Show it to the person deciding, then approve with its id. */
  previewOrder?: Maybe<OrderPreview>;
  /** Approves a proposed order: kill switch, policy check and risk gate, then the account's broker (the paper broker fills at once; a connected broker answers submitted, fills follow). Bound to a preview (`input.preview_id`), it is refused as preview-stale when the preview no longer holds; the order stays proposed. */
  approveOrder?: Maybe<Order>;
  /** Rejects a proposed order. */
  rejectOrder?: Maybe<Order>;
  /** Cancels a proposed, or submitted and unfilled, order. */
  cancelOrder?: Maybe<Order>;
  /** Generates or regenerates the daily report of a UTC date. */
  generateDailyReport?: Maybe<DailyReport>;
  /** Engages the account's kill switch; only a signed-in human releases it. */
  engageKillSwitch?: Maybe<KillSwitch>;
  /** Adds a webhook endpoint; its signing secret is answered this once. */
  createWebhookEndpoint?: Maybe<WebhookEndpointWithSecret>;
  /** Changes a webhook endpoint's URL, event types, description or whether it is enabled. */
  updateWebhookEndpoint?: Maybe<WebhookEndpoint>;
  /** Deletes a webhook endpoint with its deliveries. */
  deleteWebhookEndpoint?: Maybe<WebhookEndpointDeleted>;
  /** A new signing secret, answered this once; the previous one signs too for 24 hours. */
  rotateWebhookEndpointSecret?: Maybe<WebhookEndpointWithSecret>;
  /** Sends a webhook endpoint a `webhook.test` event. */
  testWebhookEndpoint?: Maybe<WebhookTestDelivery>;
  /** Queues a webhook endpoint's failed deliveries since a time again (at most 1000 a call). */
  recoverWebhookEndpointDeliveries?: Maybe<WebhookRecovery>;
};


export type MutationCreatePolicyArgs = {
  input: PolicyCreateRequest;
};


export type MutationGenerateIdeasArgs = {
  input: GenerateIdeasRequest;
};


export type MutationPreviewOrderArgs = {
  id: Scalars['ID']['input'];
};


export type MutationApproveOrderArgs = {
  id: Scalars['ID']['input'];
  input?: InputMaybe<ApproveOrderRequest>;
};


export type MutationRejectOrderArgs = {
  id: Scalars['ID']['input'];
  input?: InputMaybe<RejectOrderRequest>;
};


export type MutationCancelOrderArgs = {
  id: Scalars['ID']['input'];
  input?: InputMaybe<CancelOrderRequest>;
};


export type MutationGenerateDailyReportArgs = {
  input: GenerateDailyReportRequest;
};


export type MutationEngageKillSwitchArgs = {
  input: EngageKillSwitchRequest;
};


export type MutationCreateWebhookEndpointArgs = {
  input: WebhookEndpointCreateRequest;
};


export type MutationUpdateWebhookEndpointArgs = {
  id: Scalars['ID']['input'];
  input: WebhookEndpointUpdateRequest;
};


export type MutationDeleteWebhookEndpointArgs = {
  id: Scalars['ID']['input'];
};


export type MutationRotateWebhookEndpointSecretArgs = {
  id: Scalars['ID']['input'];
};


export type MutationTestWebhookEndpointArgs = {
  id: Scalars['ID']['input'];
};


export type MutationRecoverWebhookEndpointDeliveriesArgs = {
  id: Scalars['ID']['input'];
  input: WebhookRecoveryRequest;
};

export type OrderStatus =
  | 'proposed'
  | 'submitted'
  | 'partially_filled'
  | 'filled'
  | 'rejected'
  | 'cancelled'
  | 'blocked'
  | 'expired';

export type OrderSide =
  | 'buy'
  | 'sell';

export type OrderType =
  | 'market'
  | 'limit';

export type IdeaMode =
  | 'rebalance'
  | 'invest_cash'
  | 'assistant';

/** As the caller's account sees a broker: `active` (the paper broker, or connected), `not_configured` (not connected). */
export type BrokerStatus =
  | 'active'
  | 'not_configured';

export type KillSwitchLevel =
  | 'account'
  | 'global';

export type KillSwitchAction =
  | 'engaged'
  | 'released';

export type DecisionOutcome =
  | 'filled'
  | 'rejected'
  | 'cancelled'
  | 'blocked'
  | 'expired';

export type AssumptionSource =
  | 'market'
  | 'request';

export type AssumptionBasis =
  | 'historical'
  | 'request';

export type FailedCheck = {
  __typename?: 'FailedCheck';
  check: Scalars['String']['output'];
  message: Scalars['String']['output'];
};

/** What approving an order would do now, with every check it runs (the REST answer of POST /v1/orders/{id}/preview). */
export type OrderPreview = {
  __typename?: 'OrderPreview';
  id: Scalars['ID']['output'];
  order_id: Scalars['ID']['output'];
  created_at: Scalars['String']['output'];
  expires_at: Scalars['String']['output'];
  policy_version?: Maybe<Scalars['Int']['output']>;
  price: Scalars['Float']['output'];
  price_as_of: Scalars['String']['output'];
  notional: Scalars['Float']['output'];
  cash: Scalars['Float']['output'];
  cash_after: Scalars['Float']['output'];
  weight_after: Scalars['Float']['output'];
  target_weight?: Maybe<Scalars['Float']['output']>;
  /** Twelve at most: the kill switch, six policy checks, five of the risk gate's. */
  checks: Array<PreviewCheck>;
  decision: PreviewDecision;
};

export type PreviewCheck = {
  __typename?: 'PreviewCheck';
  check: Scalars['String']['output'];
  passed: Scalars['Boolean']['output'];
  message: Scalars['String']['output'];
};

export type PreviewDecision =
  | 'approve'
  | 'block'
  | 'refuse';

export type Portfolio = {
  __typename?: 'Portfolio';
  market: Scalars['String']['output'];
  currency: Scalars['String']['output'];
  cash: Scalars['Float']['output'];
  /** At most one per instrument of the market. */
  holdings: Array<Holding>;
  market_value: Scalars['Float']['output'];
  total_value: Scalars['Float']['output'];
  as_of: Scalars['String']['output'];
  updated_at: Scalars['String']['output'];
};

export type Holding = {
  __typename?: 'Holding';
  symbol: Scalars['String']['output'];
  quantity: Scalars['Float']['output'];
  average_cost: Scalars['Float']['output'];
  last_price: Scalars['Float']['output'];
  market_value: Scalars['Float']['output'];
  unrealized_pnl: Scalars['Float']['output'];
  weight: Scalars['Float']['output'];
  price_as_of: Scalars['String']['output'];
};

export type Order = {
  __typename?: 'Order';
  id: Scalars['ID']['output'];
  idea_id?: Maybe<Scalars['ID']['output']>;
  market: Scalars['String']['output'];
  currency: Scalars['String']['output'];
  symbol: Scalars['String']['output'];
  side: OrderSide;
  quantity: Scalars['Float']['output'];
  order_type: OrderType;
  limit_price?: Maybe<Scalars['Float']['output']>;
  notional: Scalars['Float']['output'];
  status: OrderStatus;
  fill_price?: Maybe<Scalars['Float']['output']>;
  average_fill_price?: Maybe<Scalars['Float']['output']>;
  filled_quantity: Scalars['Float']['output'];
  broker?: Maybe<OrderBroker>;
  expires_at: Scalars['String']['output'];
  filled_at?: Maybe<Scalars['String']['output']>;
  /** Null unless blocked; a blocked order fails one or two checks in practice (twelve exist). */
  failed_checks?: Maybe<Array<FailedCheck>>;
  /** One per transition: proposed, submitted and a final state for most orders (each partial fill at a broker adds one). */
  preview_id?: Maybe<Scalars['String']['output']>;
  events: Array<OrderEvent>;
  created_at: Scalars['String']['output'];
  updated_at: Scalars['String']['output'];
};

/** Where an order was sent: the broker's id (`paper`, `alpaca`), its own id and status word for the order. */
export type OrderBroker = {
  __typename?: 'OrderBroker';
  id: Scalars['String']['output'];
  order_id?: Maybe<Scalars['String']['output']>;
  status?: Maybe<Scalars['String']['output']>;
  submitted_at?: Maybe<Scalars['String']['output']>;
  rests_until?: Maybe<Scalars['String']['output']>;
};

export type OrderEvent = {
  __typename?: 'OrderEvent';
  from?: Maybe<OrderStatus>;
  to: OrderStatus;
  at: Scalars['String']['output'];
  client_id?: Maybe<Scalars['String']['output']>;
  actor: EventActor;
  reason?: Maybe<Scalars['String']['output']>;
  preview_id?: Maybe<Scalars['String']['output']>;
};

export type EventActor = {
  __typename?: 'EventActor';
  kind: EventActorKind;
  name: Scalars['String']['output'];
};

export type EventActorKind =
  | 'person'
  | 'client'
  | 'system';

export type OrderList = {
  __typename?: 'OrderList';
  data: Array<Order>;
  next_cursor?: Maybe<Scalars['String']['output']>;
};

export type Idea = {
  __typename?: 'Idea';
  id: Scalars['ID']['output'];
  mode: IdeaMode;
  market: Scalars['String']['output'];
  rationale: Scalars['String']['output'];
  /** At most 50: an order split to fit the policy's max_order_notional counts each part. */
  orders: Array<Order>;
  created_at: Scalars['String']['output'];
  created_by_client_id: Scalars['String']['output'];
};

export type IdeaList = {
  __typename?: 'IdeaList';
  data: Array<Idea>;
  next_cursor?: Maybe<Scalars['String']['output']>;
};

export type GenerateIdeasResponse = {
  __typename?: 'GenerateIdeasResponse';
  /** At most one idea per request. */
  ideas: Array<Idea>;
  notes: Array<Scalars['String']['output']>;
};

export type Disclosure = {
  __typename?: 'Disclosure';
  version: Scalars['String']['output'];
  title: Scalars['String']['output'];
  text: Scalars['String']['output'];
  sha256: Scalars['String']['output'];
  effective_at: Scalars['String']['output'];
};

export type PolicyLimits = {
  __typename?: 'PolicyLimits';
  max_order_notional: Scalars['Float']['output'];
  max_position_weight: Scalars['Float']['output'];
  max_daily_notional: Scalars['Float']['output'];
  max_daily_loss: Scalars['Float']['output'];
  max_price_deviation?: Maybe<Scalars['Float']['output']>;
  allowed_markets: Array<Scalars['String']['output']>;
  allowed_symbols?: Maybe<Array<Scalars['String']['output']>>;
  blocked_symbols?: Maybe<Array<Scalars['String']['output']>>;
};

export type TargetAllocationEntry = {
  __typename?: 'TargetAllocationEntry';
  symbol: Scalars['String']['output'];
  weight: Scalars['Float']['output'];
};

export type ConsentRecord = {
  __typename?: 'ConsentRecord';
  disclosure_version: Scalars['String']['output'];
  disclosure_sha256: Scalars['String']['output'];
  accepted: Scalars['Boolean']['output'];
  signer_name: Scalars['String']['output'];
  accepted_at: Scalars['String']['output'];
  client_id: Scalars['String']['output'];
  ip: Scalars['String']['output'];
  user_agent?: Maybe<Scalars['String']['output']>;
};

export type Policy = {
  __typename?: 'Policy';
  version: Scalars['Int']['output'];
  created_at: Scalars['String']['output'];
  created_by_client_id: Scalars['String']['output'];
  limits: PolicyLimits;
  /** At most 100 entries (the request's bound). */
  target_allocation: Array<TargetAllocationEntry>;
  rebalance_band: Scalars['Float']['output'];
  consent: ConsentRecord;
};

export type PolicyList = {
  __typename?: 'PolicyList';
  data: Array<Policy>;
  next_cursor?: Maybe<Scalars['String']['output']>;
};

export type BrokerCapabilities = {
  __typename?: 'BrokerCapabilities';
  order_types: Array<Scalars['String']['output']>;
  fractional_shares: Scalars['Boolean']['output'];
  short_selling: Scalars['Boolean']['output'];
  asset_classes: Array<Scalars['String']['output']>;
  paper: Scalars['Boolean']['output'];
  live: Scalars['Boolean']['output'];
};

export type Broker = {
  __typename?: 'Broker';
  id: Scalars['ID']['output'];
  name: Scalars['String']['output'];
  status: BrokerStatus;
  markets: Array<Scalars['String']['output']>;
  capabilities: BrokerCapabilities;
};

export type BrokerList = {
  __typename?: 'BrokerList';
  data: Array<Broker>;
  next_cursor?: Maybe<Scalars['String']['output']>;
};

export type KillSwitch = {
  __typename?: 'KillSwitch';
  engaged: Scalars['Boolean']['output'];
  reason?: Maybe<Scalars['String']['output']>;
  engaged_at?: Maybe<Scalars['String']['output']>;
  engaged_by?: Maybe<Scalars['String']['output']>;
  level?: Maybe<KillSwitchLevel>;
};

export type ReportOrderCounts = {
  __typename?: 'ReportOrderCounts';
  created: Scalars['Int']['output'];
  proposed: Scalars['Int']['output'];
  filled: Scalars['Int']['output'];
  rejected: Scalars['Int']['output'];
  cancelled: Scalars['Int']['output'];
  blocked: Scalars['Int']['output'];
  expired: Scalars['Int']['output'];
};

export type ReportDecision = {
  __typename?: 'ReportDecision';
  order_id: Scalars['ID']['output'];
  symbol: Scalars['String']['output'];
  side: OrderSide;
  quantity: Scalars['Float']['output'];
  outcome: DecisionOutcome;
  decided_by_client_id?: Maybe<Scalars['String']['output']>;
  decided_by?: Maybe<EventActor>;
  decided_at: Scalars['String']['output'];
  reason?: Maybe<Scalars['String']['output']>;
  /** The checks that blocked the order (empty unless blocked; there are 12 checks). */
  failed_checks: Array<FailedCheck>;
};

export type KillSwitchEvent = {
  __typename?: 'KillSwitchEvent';
  action: KillSwitchAction;
  level: KillSwitchLevel;
  at: Scalars['String']['output'];
  by?: Maybe<Scalars['String']['output']>;
  reason?: Maybe<Scalars['String']['output']>;
};

export type DailyReport = {
  __typename?: 'DailyReport';
  id: Scalars['ID']['output'];
  date: Scalars['String']['output'];
  currency: Scalars['String']['output'];
  policy_version?: Maybe<Scalars['Int']['output']>;
  ideas_generated: Scalars['Int']['output'];
  orders: ReportOrderCounts;
  /** One per order decided that day: counted as 20, the one list whose size only the day's trading bounds. */
  decisions: Array<ReportDecision>;
  notional_traded: Scalars['Float']['output'];
  start_value: Scalars['Float']['output'];
  end_value: Scalars['Float']['output'];
  pnl: Scalars['Float']['output'];
  risk_gate_blocks: Scalars['Int']['output'];
  /** The day's engagements and releases: counted as 2. */
  kill_switch_events: Array<KillSwitchEvent>;
  /** Present when the account was connected to a broker: when its mirror was last read, last matched, and what differed. */
  broker?: Maybe<ReportBroker>;
  generated_at: Scalars['String']['output'];
};

/** The broker holding a connected account, and how the service's books compared with it (see the REST schema). */
export type ReportBroker = {
  __typename?: 'ReportBroker';
  id: Scalars['String']['output'];
  mirror_read_at?: Maybe<Scalars['String']['output']>;
  mirror_matched_at?: Maybe<Scalars['String']['output']>;
  drift?: Maybe<ReportDrift>;
};

/** Differences between the books and the broker at one reading. */
export type ReportDrift = {
  __typename?: 'ReportDrift';
  at: Scalars['String']['output'];
  cash?: Maybe<ReportCashDrift>;
  /** Each position whose quantity differed: at most the account's positions, counted as 5. */
  positions: Array<ReportPositionDrift>;
};

/** Cash in the books and at the broker, decimal strings. */
export type ReportCashDrift = {
  __typename?: 'ReportCashDrift';
  books: Scalars['String']['output'];
  broker: Scalars['String']['output'];
};

/** A position's quantity in the books and at the broker, decimal strings. */
export type ReportPositionDrift = {
  __typename?: 'ReportPositionDrift';
  symbol: Scalars['String']['output'];
  books: Scalars['String']['output'];
  broker: Scalars['String']['output'];
};

export type DailyReportList = {
  __typename?: 'DailyReportList';
  data: Array<DailyReport>;
  next_cursor?: Maybe<Scalars['String']['output']>;
};

/** How feasibility probabilities were computed (see the REST operation). */
export type FeasibilityMethod =
  | 'closed_form'
  | 'moment_matched'
  | 'conditional_lognormal'
  | 'log_grid_convolution';

export type FeasibilityAssumptions = {
  __typename?: 'FeasibilityAssumptions';
  market: Scalars['String']['output'];
  expected_return: Scalars['Float']['output'];
  volatility: Scalars['Float']['output'];
  /** Always `lognormal`. */
  model: Scalars['String']['output'];
  method: FeasibilityMethod;
  /** Documented bound on the probability's absolute error; null where not measured. */
  method_accuracy?: Maybe<Scalars['Float']['output']>;
  source: AssumptionSource;
  reference: Scalars['String']['output'];
  /** `historical`: statistics of past annual returns; `request`: the caller's own assumptions. */
  basis: AssumptionBasis;
  /** Years the historical statistics cover (`1928–2023` for US); null for overrides and markets without a shipped data set. */
  period?: Maybe<Scalars['String']['output']>;
};

export type CapitalNeededSuggestion = {
  __typename?: 'CapitalNeededSuggestion';
  /** Always `capital_needed`. */
  kind: Scalars['String']['output'];
  capital: Scalars['Float']['output'];
  probability: Scalars['Float']['output'];
  /** Whether this suggestion reaches the confidence within the request's bounds. */
  attainable: Scalars['Boolean']['output'];
  /** Why it is not attainable; null when it is. */
  reason?: Maybe<Scalars['String']['output']>;
};

export type HorizonNeededSuggestion = {
  __typename?: 'HorizonNeededSuggestion';
  /** Always `horizon_needed`. */
  kind: Scalars['String']['output'];
  attainable: Scalars['Boolean']['output'];
  /** Why no horizon is attainable; null when one is. */
  reason?: Maybe<Scalars['String']['output']>;
  horizon_years?: Maybe<Scalars['Float']['output']>;
  probability?: Maybe<Scalars['Float']['output']>;
};

export type TargetReachableSuggestion = {
  __typename?: 'TargetReachableSuggestion';
  /** Always `target_reachable`. */
  kind: Scalars['String']['output'];
  target: Scalars['Float']['output'];
  probability: Scalars['Float']['output'];
  /** Whether this suggestion reaches the confidence within the request's bounds. */
  attainable: Scalars['Boolean']['output'];
  /** Why it is not attainable; null when it is. */
  reason?: Maybe<Scalars['String']['output']>;
};

export type MonthlyContributionNeededSuggestion = {
  __typename?: 'MonthlyContributionNeededSuggestion';
  /** Always `monthly_contribution_needed`. */
  kind: Scalars['String']['output'];
  monthly_contribution: Scalars['Float']['output'];
  probability: Scalars['Float']['output'];
  /** Whether this suggestion reaches the confidence within the request's bounds. */
  attainable: Scalars['Boolean']['output'];
  /** Why it is not attainable; null when it is. */
  reason?: Maybe<Scalars['String']['output']>;
};

/**
 * One suggestion of each kind; `kind` (or `__typename`) tells them apart. `probability` may be null only in
 * HorizonNeededSuggestion, so a selection asking several kinds for it aliases it per kind.
 */
export type FeasibilitySuggestion = CapitalNeededSuggestion | HorizonNeededSuggestion | TargetReachableSuggestion | MonthlyContributionNeededSuggestion;

export type GoalFeasibilityResult = {
  __typename?: 'GoalFeasibilityResult';
  required_growth_rate?: Maybe<Scalars['Float']['output']>;
  probability: Scalars['Float']['output'];
  currency: Scalars['String']['output'];
  confidence: Scalars['Float']['output'];
  assumptions: FeasibilityAssumptions;
  /** One suggestion of each kind. */
  suggestions: Array<FeasibilitySuggestion>;
};

export type FeasibilityAssumptionsOverride = {
  expected_return: Scalars['Float']['input'];
  volatility: Scalars['Float']['input'];
};

export type GoalFeasibilityRequest = {
  capital: Scalars['Float']['input'];
  target: Scalars['Float']['input'];
  horizon_years: Scalars['Float']['input'];
  market: Scalars['String']['input'];
  monthly_contribution?: InputMaybe<Scalars['Float']['input']>;
  confidence?: InputMaybe<Scalars['Float']['input']>;
  assumptions?: InputMaybe<FeasibilityAssumptionsOverride>;
};

export type PolicyLimitsInput = {
  max_order_notional: Scalars['Float']['input'];
  max_position_weight: Scalars['Float']['input'];
  max_daily_notional: Scalars['Float']['input'];
  max_daily_loss: Scalars['Float']['input'];
  max_price_deviation?: InputMaybe<Scalars['Float']['input']>;
  allowed_markets: Array<Scalars['String']['input']>;
  allowed_symbols?: InputMaybe<Array<Scalars['String']['input']>>;
  blocked_symbols?: InputMaybe<Array<Scalars['String']['input']>>;
};

export type TargetAllocationEntryInput = {
  symbol: Scalars['String']['input'];
  weight: Scalars['Float']['input'];
};

export type PolicyConsent = {
  disclosure_version: Scalars['String']['input'];
  accepted: Scalars['Boolean']['input'];
  signer_name: Scalars['String']['input'];
};

export type PolicyCreateRequest = {
  limits: PolicyLimitsInput;
  target_allocation: Array<TargetAllocationEntryInput>;
  rebalance_band?: InputMaybe<Scalars['Float']['input']>;
  /** Leaving it out is refused with `CONSENT_REQUIRED`, as in REST. */
  consent?: InputMaybe<PolicyConsent>;
};

export type GenerateIdeasRequest = {
  mode: IdeaMode;
  market: Scalars['String']['input'];
  instructions?: InputMaybe<Scalars['String']['input']>;
};

export type ApproveOrderRequest = {
  preview_id?: InputMaybe<Scalars['String']['input']>;
};

export type RejectOrderRequest = {
  reason?: InputMaybe<Scalars['String']['input']>;
};

export type CancelOrderRequest = {
  reason?: InputMaybe<Scalars['String']['input']>;
};

export type GenerateDailyReportRequest = {
  date: Scalars['String']['input'];
};

export type WebhookEndpointCreateRequest = {
  /** An absolute `https://` URL on the public internet. */
  url: Scalars['String']['input'];
  /** The event types to receive, at least one (`order.filled`, ...). */
  event_types: Array<Scalars['String']['input']>;
  description?: InputMaybe<Scalars['String']['input']>;
  /** Whether deliveries are sent to it from the start (default true). */
  enabled?: InputMaybe<Scalars['Boolean']['input']>;
};

/** What to change; members left out stay. */
export type WebhookEndpointUpdateRequest = {
  url?: InputMaybe<Scalars['String']['input']>;
  event_types?: InputMaybe<Array<Scalars['String']['input']>>;
  description?: InputMaybe<Scalars['String']['input']>;
  enabled?: InputMaybe<Scalars['Boolean']['input']>;
};

export type WebhookRecoveryRequest = {
  /** Every failed delivery made at or after this time (RFC 3339) is queued again. */
  since: Scalars['String']['input'];
};

export type EngageKillSwitchRequest = {
  reason: Scalars['String']['input'];
};

/**
 * An event: a state change with the resource as its GET answered right after it. `type` (or `__typename`) tells
 * which; the members are the same in each.
 */
export type Event = OrderProposedEvent | OrderSubmittedEvent | OrderPartiallyFilledEvent | OrderFilledEvent | OrderRejectedEvent | OrderCancelledEvent | OrderBlockedEvent | OrderExpiredEvent | IdeaGeneratedEvent | PolicyCreatedEvent | KillSwitchEngagedEvent | KillSwitchReleasedEvent | ReportGeneratedEvent;

/** `order.proposed` */
export type OrderProposedEvent = {
  __typename?: 'OrderProposedEvent';
  id: Scalars['ID']['output'];
  /** Always `order.proposed`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: Order;
};

/** `order.submitted` */
export type OrderSubmittedEvent = {
  __typename?: 'OrderSubmittedEvent';
  id: Scalars['ID']['output'];
  /** Always `order.submitted`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: Order;
};

/** `order.partially_filled` */
export type OrderPartiallyFilledEvent = {
  __typename?: 'OrderPartiallyFilledEvent';
  id: Scalars['ID']['output'];
  /** Always `order.partially_filled`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: Order;
};

/** `order.filled` */
export type OrderFilledEvent = {
  __typename?: 'OrderFilledEvent';
  id: Scalars['ID']['output'];
  /** Always `order.filled`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: Order;
};

/** `order.rejected` */
export type OrderRejectedEvent = {
  __typename?: 'OrderRejectedEvent';
  id: Scalars['ID']['output'];
  /** Always `order.rejected`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: Order;
};

/** `order.cancelled` */
export type OrderCancelledEvent = {
  __typename?: 'OrderCancelledEvent';
  id: Scalars['ID']['output'];
  /** Always `order.cancelled`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: Order;
};

/** `order.blocked` */
export type OrderBlockedEvent = {
  __typename?: 'OrderBlockedEvent';
  id: Scalars['ID']['output'];
  /** Always `order.blocked`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: Order;
};

/** `order.expired` */
export type OrderExpiredEvent = {
  __typename?: 'OrderExpiredEvent';
  id: Scalars['ID']['output'];
  /** Always `order.expired`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: Order;
};

/** `idea.generated` */
export type IdeaGeneratedEvent = {
  __typename?: 'IdeaGeneratedEvent';
  id: Scalars['ID']['output'];
  /** Always `idea.generated`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: Idea;
};

/** `policy.created` */
export type PolicyCreatedEvent = {
  __typename?: 'PolicyCreatedEvent';
  id: Scalars['ID']['output'];
  /** Always `policy.created`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: Policy;
};

/** `kill_switch.engaged` */
export type KillSwitchEngagedEvent = {
  __typename?: 'KillSwitchEngagedEvent';
  id: Scalars['ID']['output'];
  /** Always `kill_switch.engaged`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: KillSwitch;
};

/** `kill_switch.released` */
export type KillSwitchReleasedEvent = {
  __typename?: 'KillSwitchReleasedEvent';
  id: Scalars['ID']['output'];
  /** Always `kill_switch.released`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: KillSwitch;
};

/** `report.generated` */
export type ReportGeneratedEvent = {
  __typename?: 'ReportGeneratedEvent';
  id: Scalars['ID']['output'];
  /** Always `report.generated`. */
  type: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  account_id: Scalars['ID']['output'];
  data: DailyReport;
};

/** A page of the event feed, oldest first. */
export type EventList = {
  __typename?: 'EventList';
  data: Array<Event>;
  /** Where to continue: never null. */
  next_cursor: Scalars['String']['output'];
  /** Whether more events are visible after this page now. */
  has_more: Scalars['Boolean']['output'];
};

/** A webhook endpoint (never its secret). */
export type WebhookEndpoint = {
  __typename?: 'WebhookEndpoint';
  id: Scalars['ID']['output'];
  account_id: Scalars['ID']['output'];
  url: Scalars['String']['output'];
  description: Scalars['String']['output'];
  event_types: Array<Scalars['String']['output']>;
  enabled: Scalars['Boolean']['output'];
  /** Why it is disabled; null while enabled. */
  disabled_reason?: Maybe<Scalars['String']['output']>;
  disabled_at?: Maybe<Scalars['String']['output']>;
  /** Since when every attempt failed; null after a success. */
  failing_since?: Maybe<Scalars['String']['output']>;
  /** Until when its deliveries wait, backing off. */
  paused_until?: Maybe<Scalars['String']['output']>;
  /** Until when the previous secret signs too, after a rotation. */
  previous_secret_expires_at?: Maybe<Scalars['String']['output']>;
  created_at: Scalars['String']['output'];
  updated_at: Scalars['String']['output'];
};

/** A webhook endpoint with its signing secret: answered only when the secret is made. */
export type WebhookEndpointWithSecret = {
  __typename?: 'WebhookEndpointWithSecret';
  id: Scalars['ID']['output'];
  account_id: Scalars['ID']['output'];
  url: Scalars['String']['output'];
  description: Scalars['String']['output'];
  event_types: Array<Scalars['String']['output']>;
  enabled: Scalars['Boolean']['output'];
  disabled_reason?: Maybe<Scalars['String']['output']>;
  disabled_at?: Maybe<Scalars['String']['output']>;
  failing_since?: Maybe<Scalars['String']['output']>;
  paused_until?: Maybe<Scalars['String']['output']>;
  previous_secret_expires_at?: Maybe<Scalars['String']['output']>;
  created_at: Scalars['String']['output'];
  updated_at: Scalars['String']['output'];
  /** The signing secret (`whsec_...`), for any Standard Webhooks library. */
  secret: Scalars['String']['output'];
};

/** A page of webhook endpoints, newest first. */
export type WebhookEndpointList = {
  __typename?: 'WebhookEndpointList';
  data: Array<WebhookEndpoint>;
  next_cursor?: Maybe<Scalars['String']['output']>;
};

/** A deleted webhook endpoint. */
export type WebhookEndpointDeleted = {
  __typename?: 'WebhookEndpointDeleted';
  id: Scalars['ID']['output'];
  deleted: Scalars['Boolean']['output'];
};

export type WebhookDeliveryStatus =
  | 'pending'
  | 'succeeded'
  | 'failed';

/** One attempt to deliver an event to an endpoint. */
export type WebhookDeliveryAttempt = {
  __typename?: 'WebhookDeliveryAttempt';
  delivery_id: Scalars['ID']['output'];
  event_id: Scalars['ID']['output'];
  event_type: Scalars['String']['output'];
  attempt: Scalars['Int']['output'];
  attempted_at: Scalars['String']['output'];
  /** The HTTP status answered; null when none came. */
  response_status?: Maybe<Scalars['Int']['output']>;
  duration_ms: Scalars['Int']['output'];
  /** Why no usable answer came; null when the endpoint answered. */
  error?: Maybe<Scalars['String']['output']>;
  response_body?: Maybe<Scalars['String']['output']>;
  next_retry_at?: Maybe<Scalars['String']['output']>;
  /** Where the delivery stands now. */
  delivery_status: WebhookDeliveryStatus;
};

/** A page of delivery attempts, newest first. */
export type WebhookDeliveryAttemptList = {
  __typename?: 'WebhookDeliveryAttemptList';
  data: Array<WebhookDeliveryAttempt>;
  next_cursor?: Maybe<Scalars['String']['output']>;
};

/** A queued `webhook.test` event. */
export type WebhookTestDelivery = {
  __typename?: 'WebhookTestDelivery';
  delivery_id: Scalars['ID']['output'];
  event_id: Scalars['ID']['output'];
  /** Always `webhook.test`. */
  event_type: Scalars['String']['output'];
  endpoint_id: Scalars['ID']['output'];
  queued_at: Scalars['String']['output'];
};

/** What a recovery queued. */
export type WebhookRecovery = {
  __typename?: 'WebhookRecovery';
  since: Scalars['String']['output'];
  queued: Scalars['Int']['output'];
  /** Where the next call goes on, or null when everything was queued. */
  next_since?: Maybe<Scalars['String']['output']>;
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;



/** Mapping of union types */
export type ResolversUnionTypes<_RefType extends Record<string, unknown>> = {
  FeasibilitySuggestion:
    | ( CapitalNeededSuggestion )
    | ( HorizonNeededSuggestion )
    | ( TargetReachableSuggestion )
    | ( MonthlyContributionNeededSuggestion )
  ;
  Event:
    | ( OrderProposedEvent )
    | ( OrderSubmittedEvent )
    | ( OrderPartiallyFilledEvent )
    | ( OrderFilledEvent )
    | ( OrderRejectedEvent )
    | ( OrderCancelledEvent )
    | ( OrderBlockedEvent )
    | ( OrderExpiredEvent )
    | ( IdeaGeneratedEvent )
    | ( PolicyCreatedEvent )
    | ( KillSwitchEngagedEvent )
    | ( KillSwitchReleasedEvent )
    | ( ReportGeneratedEvent )
  ;
};


/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  OrderStatus: OrderStatus;
  OrderSide: OrderSide;
  OrderType: OrderType;
  IdeaMode: IdeaMode;
  BrokerStatus: BrokerStatus;
  KillSwitchLevel: KillSwitchLevel;
  KillSwitchAction: KillSwitchAction;
  DecisionOutcome: DecisionOutcome;
  AssumptionSource: AssumptionSource;
  AssumptionBasis: AssumptionBasis;
  FailedCheck: ResolverTypeWrapper<FailedCheck>;
  OrderPreview: ResolverTypeWrapper<OrderPreview>;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  PreviewCheck: ResolverTypeWrapper<PreviewCheck>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  PreviewDecision: PreviewDecision;
  Portfolio: ResolverTypeWrapper<Portfolio>;
  Holding: ResolverTypeWrapper<Holding>;
  Order: ResolverTypeWrapper<Order>;
  OrderBroker: ResolverTypeWrapper<OrderBroker>;
  OrderEvent: ResolverTypeWrapper<OrderEvent>;
  EventActor: ResolverTypeWrapper<EventActor>;
  EventActorKind: EventActorKind;
  OrderList: ResolverTypeWrapper<OrderList>;
  Idea: ResolverTypeWrapper<Idea>;
  IdeaList: ResolverTypeWrapper<IdeaList>;
  GenerateIdeasResponse: ResolverTypeWrapper<GenerateIdeasResponse>;
  Disclosure: ResolverTypeWrapper<Disclosure>;
  PolicyLimits: ResolverTypeWrapper<PolicyLimits>;
  TargetAllocationEntry: ResolverTypeWrapper<TargetAllocationEntry>;
  ConsentRecord: ResolverTypeWrapper<ConsentRecord>;
  Policy: ResolverTypeWrapper<Policy>;
  PolicyList: ResolverTypeWrapper<PolicyList>;
  BrokerCapabilities: ResolverTypeWrapper<BrokerCapabilities>;
  Broker: ResolverTypeWrapper<Broker>;
  BrokerList: ResolverTypeWrapper<BrokerList>;
  KillSwitch: ResolverTypeWrapper<KillSwitch>;
  ReportOrderCounts: ResolverTypeWrapper<ReportOrderCounts>;
  ReportDecision: ResolverTypeWrapper<ReportDecision>;
  KillSwitchEvent: ResolverTypeWrapper<KillSwitchEvent>;
  DailyReport: ResolverTypeWrapper<DailyReport>;
  ReportBroker: ResolverTypeWrapper<ReportBroker>;
  ReportDrift: ResolverTypeWrapper<ReportDrift>;
  ReportCashDrift: ResolverTypeWrapper<ReportCashDrift>;
  ReportPositionDrift: ResolverTypeWrapper<ReportPositionDrift>;
  DailyReportList: ResolverTypeWrapper<DailyReportList>;
  FeasibilityMethod: FeasibilityMethod;
  FeasibilityAssumptions: ResolverTypeWrapper<FeasibilityAssumptions>;
  CapitalNeededSuggestion: ResolverTypeWrapper<CapitalNeededSuggestion>;
  HorizonNeededSuggestion: ResolverTypeWrapper<HorizonNeededSuggestion>;
  TargetReachableSuggestion: ResolverTypeWrapper<TargetReachableSuggestion>;
  MonthlyContributionNeededSuggestion: ResolverTypeWrapper<MonthlyContributionNeededSuggestion>;
  FeasibilitySuggestion: ResolverTypeWrapper<ResolversUnionTypes<ResolversTypes>['FeasibilitySuggestion']>;
  GoalFeasibilityResult: ResolverTypeWrapper<Omit<GoalFeasibilityResult, 'suggestions'> & { suggestions: Array<ResolversTypes['FeasibilitySuggestion']> }>;
  FeasibilityAssumptionsOverride: FeasibilityAssumptionsOverride;
  GoalFeasibilityRequest: GoalFeasibilityRequest;
  PolicyLimitsInput: PolicyLimitsInput;
  TargetAllocationEntryInput: TargetAllocationEntryInput;
  PolicyConsent: PolicyConsent;
  PolicyCreateRequest: PolicyCreateRequest;
  GenerateIdeasRequest: GenerateIdeasRequest;
  ApproveOrderRequest: ApproveOrderRequest;
  RejectOrderRequest: RejectOrderRequest;
  CancelOrderRequest: CancelOrderRequest;
  GenerateDailyReportRequest: GenerateDailyReportRequest;
  WebhookEndpointCreateRequest: WebhookEndpointCreateRequest;
  WebhookEndpointUpdateRequest: WebhookEndpointUpdateRequest;
  WebhookRecoveryRequest: WebhookRecoveryRequest;
  EngageKillSwitchRequest: EngageKillSwitchRequest;
  Event: ResolverTypeWrapper<ResolversUnionTypes<ResolversTypes>['Event']>;
  OrderProposedEvent: ResolverTypeWrapper<OrderProposedEvent>;
  OrderSubmittedEvent: ResolverTypeWrapper<OrderSubmittedEvent>;
  OrderPartiallyFilledEvent: ResolverTypeWrapper<OrderPartiallyFilledEvent>;
  OrderFilledEvent: ResolverTypeWrapper<OrderFilledEvent>;
  OrderRejectedEvent: ResolverTypeWrapper<OrderRejectedEvent>;
  OrderCancelledEvent: ResolverTypeWrapper<OrderCancelledEvent>;
  OrderBlockedEvent: ResolverTypeWrapper<OrderBlockedEvent>;
  OrderExpiredEvent: ResolverTypeWrapper<OrderExpiredEvent>;
  IdeaGeneratedEvent: ResolverTypeWrapper<IdeaGeneratedEvent>;
  PolicyCreatedEvent: ResolverTypeWrapper<PolicyCreatedEvent>;
  KillSwitchEngagedEvent: ResolverTypeWrapper<KillSwitchEngagedEvent>;
  KillSwitchReleasedEvent: ResolverTypeWrapper<KillSwitchReleasedEvent>;
  ReportGeneratedEvent: ResolverTypeWrapper<ReportGeneratedEvent>;
  EventList: ResolverTypeWrapper<Omit<EventList, 'data'> & { data: Array<ResolversTypes['Event']> }>;
  WebhookEndpoint: ResolverTypeWrapper<WebhookEndpoint>;
  WebhookEndpointWithSecret: ResolverTypeWrapper<WebhookEndpointWithSecret>;
  WebhookEndpointList: ResolverTypeWrapper<WebhookEndpointList>;
  WebhookEndpointDeleted: ResolverTypeWrapper<WebhookEndpointDeleted>;
  WebhookDeliveryStatus: WebhookDeliveryStatus;
  WebhookDeliveryAttempt: ResolverTypeWrapper<WebhookDeliveryAttempt>;
  WebhookDeliveryAttemptList: ResolverTypeWrapper<WebhookDeliveryAttemptList>;
  WebhookTestDelivery: ResolverTypeWrapper<WebhookTestDelivery>;
  WebhookRecovery: ResolverTypeWrapper<WebhookRecovery>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Query: Record<PropertyKey, never>;
  String: Scalars['String']['output'];
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  Mutation: Record<PropertyKey, never>;
  FailedCheck: FailedCheck;
  OrderPreview: OrderPreview;
  Float: Scalars['Float']['output'];
  PreviewCheck: PreviewCheck;
  Boolean: Scalars['Boolean']['output'];
  Portfolio: Portfolio;
  Holding: Holding;
  Order: Order;
  OrderBroker: OrderBroker;
  OrderEvent: OrderEvent;
  EventActor: EventActor;
  OrderList: OrderList;
  Idea: Idea;
  IdeaList: IdeaList;
  GenerateIdeasResponse: GenerateIdeasResponse;
  Disclosure: Disclosure;
  PolicyLimits: PolicyLimits;
  TargetAllocationEntry: TargetAllocationEntry;
  ConsentRecord: ConsentRecord;
  Policy: Policy;
  PolicyList: PolicyList;
  BrokerCapabilities: BrokerCapabilities;
  Broker: Broker;
  BrokerList: BrokerList;
  KillSwitch: KillSwitch;
  ReportOrderCounts: ReportOrderCounts;
  ReportDecision: ReportDecision;
  KillSwitchEvent: KillSwitchEvent;
  DailyReport: DailyReport;
  ReportBroker: ReportBroker;
  ReportDrift: ReportDrift;
  ReportCashDrift: ReportCashDrift;
  ReportPositionDrift: ReportPositionDrift;
  DailyReportList: DailyReportList;
  FeasibilityAssumptions: FeasibilityAssumptions;
  CapitalNeededSuggestion: CapitalNeededSuggestion;
  HorizonNeededSuggestion: HorizonNeededSuggestion;
  TargetReachableSuggestion: TargetReachableSuggestion;
  MonthlyContributionNeededSuggestion: MonthlyContributionNeededSuggestion;
  FeasibilitySuggestion: ResolversUnionTypes<ResolversParentTypes>['FeasibilitySuggestion'];
  GoalFeasibilityResult: Omit<GoalFeasibilityResult, 'suggestions'> & { suggestions: Array<ResolversParentTypes['FeasibilitySuggestion']> };
  FeasibilityAssumptionsOverride: FeasibilityAssumptionsOverride;
  GoalFeasibilityRequest: GoalFeasibilityRequest;
  PolicyLimitsInput: PolicyLimitsInput;
  TargetAllocationEntryInput: TargetAllocationEntryInput;
  PolicyConsent: PolicyConsent;
  PolicyCreateRequest: PolicyCreateRequest;
  GenerateIdeasRequest: GenerateIdeasRequest;
  ApproveOrderRequest: ApproveOrderRequest;
  RejectOrderRequest: RejectOrderRequest;
  CancelOrderRequest: CancelOrderRequest;
  GenerateDailyReportRequest: GenerateDailyReportRequest;
  WebhookEndpointCreateRequest: WebhookEndpointCreateRequest;
  WebhookEndpointUpdateRequest: WebhookEndpointUpdateRequest;
  WebhookRecoveryRequest: WebhookRecoveryRequest;
  EngageKillSwitchRequest: EngageKillSwitchRequest;
  Event: ResolversUnionTypes<ResolversParentTypes>['Event'];
  OrderProposedEvent: OrderProposedEvent;
  OrderSubmittedEvent: OrderSubmittedEvent;
  OrderPartiallyFilledEvent: OrderPartiallyFilledEvent;
  OrderFilledEvent: OrderFilledEvent;
  OrderRejectedEvent: OrderRejectedEvent;
  OrderCancelledEvent: OrderCancelledEvent;
  OrderBlockedEvent: OrderBlockedEvent;
  OrderExpiredEvent: OrderExpiredEvent;
  IdeaGeneratedEvent: IdeaGeneratedEvent;
  PolicyCreatedEvent: PolicyCreatedEvent;
  KillSwitchEngagedEvent: KillSwitchEngagedEvent;
  KillSwitchReleasedEvent: KillSwitchReleasedEvent;
  ReportGeneratedEvent: ReportGeneratedEvent;
  EventList: Omit<EventList, 'data'> & { data: Array<ResolversParentTypes['Event']> };
  WebhookEndpoint: WebhookEndpoint;
  WebhookEndpointWithSecret: WebhookEndpointWithSecret;
  WebhookEndpointList: WebhookEndpointList;
  WebhookEndpointDeleted: WebhookEndpointDeleted;
  WebhookDeliveryAttempt: WebhookDeliveryAttempt;
  WebhookDeliveryAttemptList: WebhookDeliveryAttemptList;
  WebhookTestDelivery: WebhookTestDelivery;
  WebhookRecovery: WebhookRecovery;
};

export type OperationDirectiveArgs = {
  id: Scalars['String']['input'];
};

export type OperationDirectiveResolver<Result, Parent, ContextType = GraphQLContext, Args = OperationDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type ListSizeDirectiveArgs = {
  assumedSize?: Maybe<Scalars['Int']['input']>;
  slicingArgument?: Maybe<Scalars['String']['input']>;
};

export type ListSizeDirectiveResolver<Result, Parent, ContextType = GraphQLContext, Args = ListSizeDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  portfolio?: Resolver<Maybe<ResolversTypes['Portfolio']>, ParentType, ContextType, RequireFields<QueryPortfolioArgs, 'market'>>;
  orders?: Resolver<Maybe<ResolversTypes['OrderList']>, ParentType, ContextType, RequireFields<QueryOrdersArgs, 'limit'>>;
  order?: Resolver<Maybe<ResolversTypes['Order']>, ParentType, ContextType, RequireFields<QueryOrderArgs, 'id'>>;
  ideas?: Resolver<Maybe<ResolversTypes['IdeaList']>, ParentType, ContextType, RequireFields<QueryIdeasArgs, 'limit'>>;
  idea?: Resolver<Maybe<ResolversTypes['Idea']>, ParentType, ContextType, RequireFields<QueryIdeaArgs, 'id'>>;
  policies?: Resolver<Maybe<ResolversTypes['PolicyList']>, ParentType, ContextType, RequireFields<QueryPoliciesArgs, 'limit'>>;
  currentPolicy?: Resolver<Maybe<ResolversTypes['Policy']>, ParentType, ContextType>;
  policy?: Resolver<Maybe<ResolversTypes['Policy']>, ParentType, ContextType, RequireFields<QueryPolicyArgs, 'version'>>;
  disclosure?: Resolver<Maybe<ResolversTypes['Disclosure']>, ParentType, ContextType>;
  dailyReports?: Resolver<Maybe<ResolversTypes['DailyReportList']>, ParentType, ContextType, RequireFields<QueryDailyReportsArgs, 'limit'>>;
  dailyReport?: Resolver<Maybe<ResolversTypes['DailyReport']>, ParentType, ContextType, RequireFields<QueryDailyReportArgs, 'date'>>;
  brokers?: Resolver<Maybe<ResolversTypes['BrokerList']>, ParentType, ContextType, RequireFields<QueryBrokersArgs, 'limit'>>;
  killSwitch?: Resolver<Maybe<ResolversTypes['KillSwitch']>, ParentType, ContextType>;
  events?: Resolver<Maybe<ResolversTypes['EventList']>, ParentType, ContextType, RequireFields<QueryEventsArgs, 'limit'>>;
  event?: Resolver<Maybe<ResolversTypes['Event']>, ParentType, ContextType, RequireFields<QueryEventArgs, 'id'>>;
  webhookEndpoints?: Resolver<Maybe<ResolversTypes['WebhookEndpointList']>, ParentType, ContextType, RequireFields<QueryWebhookEndpointsArgs, 'limit'>>;
  webhookEndpoint?: Resolver<Maybe<ResolversTypes['WebhookEndpoint']>, ParentType, ContextType, RequireFields<QueryWebhookEndpointArgs, 'id'>>;
  webhookEndpointDeliveries?: Resolver<Maybe<ResolversTypes['WebhookDeliveryAttemptList']>, ParentType, ContextType, RequireFields<QueryWebhookEndpointDeliveriesArgs, 'id' | 'limit'>>;
  goalFeasibility?: Resolver<Maybe<ResolversTypes['GoalFeasibilityResult']>, ParentType, ContextType, RequireFields<QueryGoalFeasibilityArgs, 'input'>>;
};

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  createPolicy?: Resolver<Maybe<ResolversTypes['Policy']>, ParentType, ContextType, RequireFields<MutationCreatePolicyArgs, 'input'>>;
  generateIdeas?: Resolver<Maybe<ResolversTypes['GenerateIdeasResponse']>, ParentType, ContextType, RequireFields<MutationGenerateIdeasArgs, 'input'>>;
  previewOrder?: Resolver<Maybe<ResolversTypes['OrderPreview']>, ParentType, ContextType, RequireFields<MutationPreviewOrderArgs, 'id'>>;
  approveOrder?: Resolver<Maybe<ResolversTypes['Order']>, ParentType, ContextType, RequireFields<MutationApproveOrderArgs, 'id'>>;
  rejectOrder?: Resolver<Maybe<ResolversTypes['Order']>, ParentType, ContextType, RequireFields<MutationRejectOrderArgs, 'id'>>;
  cancelOrder?: Resolver<Maybe<ResolversTypes['Order']>, ParentType, ContextType, RequireFields<MutationCancelOrderArgs, 'id'>>;
  generateDailyReport?: Resolver<Maybe<ResolversTypes['DailyReport']>, ParentType, ContextType, RequireFields<MutationGenerateDailyReportArgs, 'input'>>;
  engageKillSwitch?: Resolver<Maybe<ResolversTypes['KillSwitch']>, ParentType, ContextType, RequireFields<MutationEngageKillSwitchArgs, 'input'>>;
  createWebhookEndpoint?: Resolver<Maybe<ResolversTypes['WebhookEndpointWithSecret']>, ParentType, ContextType, RequireFields<MutationCreateWebhookEndpointArgs, 'input'>>;
  updateWebhookEndpoint?: Resolver<Maybe<ResolversTypes['WebhookEndpoint']>, ParentType, ContextType, RequireFields<MutationUpdateWebhookEndpointArgs, 'id' | 'input'>>;
  deleteWebhookEndpoint?: Resolver<Maybe<ResolversTypes['WebhookEndpointDeleted']>, ParentType, ContextType, RequireFields<MutationDeleteWebhookEndpointArgs, 'id'>>;
  rotateWebhookEndpointSecret?: Resolver<Maybe<ResolversTypes['WebhookEndpointWithSecret']>, ParentType, ContextType, RequireFields<MutationRotateWebhookEndpointSecretArgs, 'id'>>;
  testWebhookEndpoint?: Resolver<Maybe<ResolversTypes['WebhookTestDelivery']>, ParentType, ContextType, RequireFields<MutationTestWebhookEndpointArgs, 'id'>>;
  recoverWebhookEndpointDeliveries?: Resolver<Maybe<ResolversTypes['WebhookRecovery']>, ParentType, ContextType, RequireFields<MutationRecoverWebhookEndpointDeliveriesArgs, 'id' | 'input'>>;
};

export type FailedCheckResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FailedCheck'] = ResolversParentTypes['FailedCheck']> = {
  check?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type OrderPreviewResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderPreview'] = ResolversParentTypes['OrderPreview']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  order_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  created_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  expires_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  policy_version?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  price?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  price_as_of?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  notional?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  cash?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  cash_after?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  weight_after?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  target_weight?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  checks?: Resolver<Array<ResolversTypes['PreviewCheck']>, ParentType, ContextType>;
  decision?: Resolver<ResolversTypes['PreviewDecision'], ParentType, ContextType>;
};

export type PreviewCheckResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PreviewCheck'] = ResolversParentTypes['PreviewCheck']> = {
  check?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  passed?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type PortfolioResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Portfolio'] = ResolversParentTypes['Portfolio']> = {
  market?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  cash?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  holdings?: Resolver<Array<ResolversTypes['Holding']>, ParentType, ContextType>;
  market_value?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  total_value?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  as_of?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  updated_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type HoldingResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Holding'] = ResolversParentTypes['Holding']> = {
  symbol?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  quantity?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  average_cost?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  last_price?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  market_value?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  unrealized_pnl?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  weight?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  price_as_of?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type OrderResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Order'] = ResolversParentTypes['Order']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  idea_id?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  market?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  symbol?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  side?: Resolver<ResolversTypes['OrderSide'], ParentType, ContextType>;
  quantity?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  order_type?: Resolver<ResolversTypes['OrderType'], ParentType, ContextType>;
  limit_price?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  notional?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['OrderStatus'], ParentType, ContextType>;
  fill_price?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  average_fill_price?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  filled_quantity?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  broker?: Resolver<Maybe<ResolversTypes['OrderBroker']>, ParentType, ContextType>;
  expires_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  filled_at?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  failed_checks?: Resolver<Maybe<Array<ResolversTypes['FailedCheck']>>, ParentType, ContextType>;
  preview_id?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  events?: Resolver<Array<ResolversTypes['OrderEvent']>, ParentType, ContextType>;
  created_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  updated_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type OrderBrokerResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderBroker'] = ResolversParentTypes['OrderBroker']> = {
  id?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  order_id?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  status?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  submitted_at?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  rests_until?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type OrderEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderEvent'] = ResolversParentTypes['OrderEvent']> = {
  from?: Resolver<Maybe<ResolversTypes['OrderStatus']>, ParentType, ContextType>;
  to?: Resolver<ResolversTypes['OrderStatus'], ParentType, ContextType>;
  at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  client_id?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  actor?: Resolver<ResolversTypes['EventActor'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  preview_id?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type EventActorResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['EventActor'] = ResolversParentTypes['EventActor']> = {
  kind?: Resolver<ResolversTypes['EventActorKind'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type OrderListResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderList'] = ResolversParentTypes['OrderList']> = {
  data?: Resolver<Array<ResolversTypes['Order']>, ParentType, ContextType>;
  next_cursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type IdeaResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Idea'] = ResolversParentTypes['Idea']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  mode?: Resolver<ResolversTypes['IdeaMode'], ParentType, ContextType>;
  market?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  rationale?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  orders?: Resolver<Array<ResolversTypes['Order']>, ParentType, ContextType>;
  created_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  created_by_client_id?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type IdeaListResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['IdeaList'] = ResolversParentTypes['IdeaList']> = {
  data?: Resolver<Array<ResolversTypes['Idea']>, ParentType, ContextType>;
  next_cursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type GenerateIdeasResponseResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['GenerateIdeasResponse'] = ResolversParentTypes['GenerateIdeasResponse']> = {
  ideas?: Resolver<Array<ResolversTypes['Idea']>, ParentType, ContextType>;
  notes?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
};

export type DisclosureResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Disclosure'] = ResolversParentTypes['Disclosure']> = {
  version?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  title?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  text?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  sha256?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  effective_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type PolicyLimitsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PolicyLimits'] = ResolversParentTypes['PolicyLimits']> = {
  max_order_notional?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  max_position_weight?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  max_daily_notional?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  max_daily_loss?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  max_price_deviation?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  allowed_markets?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  allowed_symbols?: Resolver<Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
  blocked_symbols?: Resolver<Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
};

export type TargetAllocationEntryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TargetAllocationEntry'] = ResolversParentTypes['TargetAllocationEntry']> = {
  symbol?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  weight?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
};

export type ConsentRecordResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ConsentRecord'] = ResolversParentTypes['ConsentRecord']> = {
  disclosure_version?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  disclosure_sha256?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  accepted?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  signer_name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  accepted_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  client_id?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  ip?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  user_agent?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type PolicyResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Policy'] = ResolversParentTypes['Policy']> = {
  version?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  created_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  created_by_client_id?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  limits?: Resolver<ResolversTypes['PolicyLimits'], ParentType, ContextType>;
  target_allocation?: Resolver<Array<ResolversTypes['TargetAllocationEntry']>, ParentType, ContextType>;
  rebalance_band?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  consent?: Resolver<ResolversTypes['ConsentRecord'], ParentType, ContextType>;
};

export type PolicyListResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PolicyList'] = ResolversParentTypes['PolicyList']> = {
  data?: Resolver<Array<ResolversTypes['Policy']>, ParentType, ContextType>;
  next_cursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type BrokerCapabilitiesResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['BrokerCapabilities'] = ResolversParentTypes['BrokerCapabilities']> = {
  order_types?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  fractional_shares?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  short_selling?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  asset_classes?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  paper?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  live?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type BrokerResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Broker'] = ResolversParentTypes['Broker']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['BrokerStatus'], ParentType, ContextType>;
  markets?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  capabilities?: Resolver<ResolversTypes['BrokerCapabilities'], ParentType, ContextType>;
};

export type BrokerListResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['BrokerList'] = ResolversParentTypes['BrokerList']> = {
  data?: Resolver<Array<ResolversTypes['Broker']>, ParentType, ContextType>;
  next_cursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type KillSwitchResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['KillSwitch'] = ResolversParentTypes['KillSwitch']> = {
  engaged?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  engaged_at?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  engaged_by?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  level?: Resolver<Maybe<ResolversTypes['KillSwitchLevel']>, ParentType, ContextType>;
};

export type ReportOrderCountsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReportOrderCounts'] = ResolversParentTypes['ReportOrderCounts']> = {
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  proposed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  filled?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  rejected?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  cancelled?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  blocked?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  expired?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ReportDecisionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReportDecision'] = ResolversParentTypes['ReportDecision']> = {
  order_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  symbol?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  side?: Resolver<ResolversTypes['OrderSide'], ParentType, ContextType>;
  quantity?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  outcome?: Resolver<ResolversTypes['DecisionOutcome'], ParentType, ContextType>;
  decided_by_client_id?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  decided_by?: Resolver<Maybe<ResolversTypes['EventActor']>, ParentType, ContextType>;
  decided_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  failed_checks?: Resolver<Array<ResolversTypes['FailedCheck']>, ParentType, ContextType>;
};

export type KillSwitchEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['KillSwitchEvent'] = ResolversParentTypes['KillSwitchEvent']> = {
  action?: Resolver<ResolversTypes['KillSwitchAction'], ParentType, ContextType>;
  level?: Resolver<ResolversTypes['KillSwitchLevel'], ParentType, ContextType>;
  at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  by?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type DailyReportResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['DailyReport'] = ResolversParentTypes['DailyReport']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  date?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  policy_version?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  ideas_generated?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  orders?: Resolver<ResolversTypes['ReportOrderCounts'], ParentType, ContextType>;
  decisions?: Resolver<Array<ResolversTypes['ReportDecision']>, ParentType, ContextType>;
  notional_traded?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  start_value?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  end_value?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  pnl?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  risk_gate_blocks?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  kill_switch_events?: Resolver<Array<ResolversTypes['KillSwitchEvent']>, ParentType, ContextType>;
  broker?: Resolver<Maybe<ResolversTypes['ReportBroker']>, ParentType, ContextType>;
  generated_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ReportBrokerResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReportBroker'] = ResolversParentTypes['ReportBroker']> = {
  id?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  mirror_read_at?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  mirror_matched_at?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  drift?: Resolver<Maybe<ResolversTypes['ReportDrift']>, ParentType, ContextType>;
};

export type ReportDriftResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReportDrift'] = ResolversParentTypes['ReportDrift']> = {
  at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  cash?: Resolver<Maybe<ResolversTypes['ReportCashDrift']>, ParentType, ContextType>;
  positions?: Resolver<Array<ResolversTypes['ReportPositionDrift']>, ParentType, ContextType>;
};

export type ReportCashDriftResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReportCashDrift'] = ResolversParentTypes['ReportCashDrift']> = {
  books?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  broker?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ReportPositionDriftResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReportPositionDrift'] = ResolversParentTypes['ReportPositionDrift']> = {
  symbol?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  books?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  broker?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type DailyReportListResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['DailyReportList'] = ResolversParentTypes['DailyReportList']> = {
  data?: Resolver<Array<ResolversTypes['DailyReport']>, ParentType, ContextType>;
  next_cursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type FeasibilityAssumptionsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FeasibilityAssumptions'] = ResolversParentTypes['FeasibilityAssumptions']> = {
  market?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  expected_return?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  volatility?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  method?: Resolver<ResolversTypes['FeasibilityMethod'], ParentType, ContextType>;
  method_accuracy?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  source?: Resolver<ResolversTypes['AssumptionSource'], ParentType, ContextType>;
  reference?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  basis?: Resolver<ResolversTypes['AssumptionBasis'], ParentType, ContextType>;
  period?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type CapitalNeededSuggestionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CapitalNeededSuggestion'] = ResolversParentTypes['CapitalNeededSuggestion']> = {
  kind?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  capital?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  probability?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  attainable?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type HorizonNeededSuggestionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['HorizonNeededSuggestion'] = ResolversParentTypes['HorizonNeededSuggestion']> = {
  kind?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  attainable?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  horizon_years?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  probability?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type TargetReachableSuggestionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TargetReachableSuggestion'] = ResolversParentTypes['TargetReachableSuggestion']> = {
  kind?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  target?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  probability?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  attainable?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type MonthlyContributionNeededSuggestionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MonthlyContributionNeededSuggestion'] = ResolversParentTypes['MonthlyContributionNeededSuggestion']> = {
  kind?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  monthly_contribution?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  probability?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  attainable?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type FeasibilitySuggestionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FeasibilitySuggestion'] = ResolversParentTypes['FeasibilitySuggestion']> = {
  __resolveType: TypeResolveFn<'CapitalNeededSuggestion' | 'HorizonNeededSuggestion' | 'TargetReachableSuggestion' | 'MonthlyContributionNeededSuggestion', ParentType, ContextType>;
};

export type GoalFeasibilityResultResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['GoalFeasibilityResult'] = ResolversParentTypes['GoalFeasibilityResult']> = {
  required_growth_rate?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  probability?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  confidence?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  assumptions?: Resolver<ResolversTypes['FeasibilityAssumptions'], ParentType, ContextType>;
  suggestions?: Resolver<Array<ResolversTypes['FeasibilitySuggestion']>, ParentType, ContextType>;
};

export type EventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Event'] = ResolversParentTypes['Event']> = {
  __resolveType: TypeResolveFn<'OrderProposedEvent' | 'OrderSubmittedEvent' | 'OrderPartiallyFilledEvent' | 'OrderFilledEvent' | 'OrderRejectedEvent' | 'OrderCancelledEvent' | 'OrderBlockedEvent' | 'OrderExpiredEvent' | 'IdeaGeneratedEvent' | 'PolicyCreatedEvent' | 'KillSwitchEngagedEvent' | 'KillSwitchReleasedEvent' | 'ReportGeneratedEvent', ParentType, ContextType>;
};

export type OrderProposedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderProposedEvent'] = ResolversParentTypes['OrderProposedEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type OrderSubmittedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderSubmittedEvent'] = ResolversParentTypes['OrderSubmittedEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type OrderPartiallyFilledEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderPartiallyFilledEvent'] = ResolversParentTypes['OrderPartiallyFilledEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type OrderFilledEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderFilledEvent'] = ResolversParentTypes['OrderFilledEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type OrderRejectedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderRejectedEvent'] = ResolversParentTypes['OrderRejectedEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type OrderCancelledEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderCancelledEvent'] = ResolversParentTypes['OrderCancelledEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type OrderBlockedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderBlockedEvent'] = ResolversParentTypes['OrderBlockedEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type OrderExpiredEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderExpiredEvent'] = ResolversParentTypes['OrderExpiredEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type IdeaGeneratedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['IdeaGeneratedEvent'] = ResolversParentTypes['IdeaGeneratedEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['Idea'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type PolicyCreatedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PolicyCreatedEvent'] = ResolversParentTypes['PolicyCreatedEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['Policy'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type KillSwitchEngagedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['KillSwitchEngagedEvent'] = ResolversParentTypes['KillSwitchEngagedEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['KillSwitch'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type KillSwitchReleasedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['KillSwitchReleasedEvent'] = ResolversParentTypes['KillSwitchReleasedEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['KillSwitch'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ReportGeneratedEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReportGeneratedEvent'] = ResolversParentTypes['ReportGeneratedEvent']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['DailyReport'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type EventListResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['EventList'] = ResolversParentTypes['EventList']> = {
  data?: Resolver<Array<ResolversTypes['Event']>, ParentType, ContextType>;
  next_cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  has_more?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type WebhookEndpointResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookEndpoint'] = ResolversParentTypes['WebhookEndpoint']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  url?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  description?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  event_types?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  enabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  disabled_reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  disabled_at?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  failing_since?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  paused_until?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  previous_secret_expires_at?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  created_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  updated_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type WebhookEndpointWithSecretResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookEndpointWithSecret'] = ResolversParentTypes['WebhookEndpointWithSecret']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  account_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  url?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  description?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  event_types?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  enabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  disabled_reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  disabled_at?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  failing_since?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  paused_until?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  previous_secret_expires_at?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  created_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  updated_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  secret?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type WebhookEndpointListResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookEndpointList'] = ResolversParentTypes['WebhookEndpointList']> = {
  data?: Resolver<Array<ResolversTypes['WebhookEndpoint']>, ParentType, ContextType>;
  next_cursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type WebhookEndpointDeletedResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookEndpointDeleted'] = ResolversParentTypes['WebhookEndpointDeleted']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  deleted?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type WebhookDeliveryAttemptResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookDeliveryAttempt'] = ResolversParentTypes['WebhookDeliveryAttempt']> = {
  delivery_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  event_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  event_type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  attempt?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  attempted_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  response_status?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  duration_ms?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  response_body?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  next_retry_at?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  delivery_status?: Resolver<ResolversTypes['WebhookDeliveryStatus'], ParentType, ContextType>;
};

export type WebhookDeliveryAttemptListResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookDeliveryAttemptList'] = ResolversParentTypes['WebhookDeliveryAttemptList']> = {
  data?: Resolver<Array<ResolversTypes['WebhookDeliveryAttempt']>, ParentType, ContextType>;
  next_cursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type WebhookTestDeliveryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookTestDelivery'] = ResolversParentTypes['WebhookTestDelivery']> = {
  delivery_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  event_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  event_type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  endpoint_id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  queued_at?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type WebhookRecoveryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookRecovery'] = ResolversParentTypes['WebhookRecovery']> = {
  since?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  queued?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  next_since?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type Resolvers<ContextType = GraphQLContext> = {
  Query?: QueryResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  FailedCheck?: FailedCheckResolvers<ContextType>;
  OrderPreview?: OrderPreviewResolvers<ContextType>;
  PreviewCheck?: PreviewCheckResolvers<ContextType>;
  Portfolio?: PortfolioResolvers<ContextType>;
  Holding?: HoldingResolvers<ContextType>;
  Order?: OrderResolvers<ContextType>;
  OrderBroker?: OrderBrokerResolvers<ContextType>;
  OrderEvent?: OrderEventResolvers<ContextType>;
  EventActor?: EventActorResolvers<ContextType>;
  OrderList?: OrderListResolvers<ContextType>;
  Idea?: IdeaResolvers<ContextType>;
  IdeaList?: IdeaListResolvers<ContextType>;
  GenerateIdeasResponse?: GenerateIdeasResponseResolvers<ContextType>;
  Disclosure?: DisclosureResolvers<ContextType>;
  PolicyLimits?: PolicyLimitsResolvers<ContextType>;
  TargetAllocationEntry?: TargetAllocationEntryResolvers<ContextType>;
  ConsentRecord?: ConsentRecordResolvers<ContextType>;
  Policy?: PolicyResolvers<ContextType>;
  PolicyList?: PolicyListResolvers<ContextType>;
  BrokerCapabilities?: BrokerCapabilitiesResolvers<ContextType>;
  Broker?: BrokerResolvers<ContextType>;
  BrokerList?: BrokerListResolvers<ContextType>;
  KillSwitch?: KillSwitchResolvers<ContextType>;
  ReportOrderCounts?: ReportOrderCountsResolvers<ContextType>;
  ReportDecision?: ReportDecisionResolvers<ContextType>;
  KillSwitchEvent?: KillSwitchEventResolvers<ContextType>;
  DailyReport?: DailyReportResolvers<ContextType>;
  ReportBroker?: ReportBrokerResolvers<ContextType>;
  ReportDrift?: ReportDriftResolvers<ContextType>;
  ReportCashDrift?: ReportCashDriftResolvers<ContextType>;
  ReportPositionDrift?: ReportPositionDriftResolvers<ContextType>;
  DailyReportList?: DailyReportListResolvers<ContextType>;
  FeasibilityAssumptions?: FeasibilityAssumptionsResolvers<ContextType>;
  CapitalNeededSuggestion?: CapitalNeededSuggestionResolvers<ContextType>;
  HorizonNeededSuggestion?: HorizonNeededSuggestionResolvers<ContextType>;
  TargetReachableSuggestion?: TargetReachableSuggestionResolvers<ContextType>;
  MonthlyContributionNeededSuggestion?: MonthlyContributionNeededSuggestionResolvers<ContextType>;
  FeasibilitySuggestion?: FeasibilitySuggestionResolvers<ContextType>;
  GoalFeasibilityResult?: GoalFeasibilityResultResolvers<ContextType>;
  Event?: EventResolvers<ContextType>;
  OrderProposedEvent?: OrderProposedEventResolvers<ContextType>;
  OrderSubmittedEvent?: OrderSubmittedEventResolvers<ContextType>;
  OrderPartiallyFilledEvent?: OrderPartiallyFilledEventResolvers<ContextType>;
  OrderFilledEvent?: OrderFilledEventResolvers<ContextType>;
  OrderRejectedEvent?: OrderRejectedEventResolvers<ContextType>;
  OrderCancelledEvent?: OrderCancelledEventResolvers<ContextType>;
  OrderBlockedEvent?: OrderBlockedEventResolvers<ContextType>;
  OrderExpiredEvent?: OrderExpiredEventResolvers<ContextType>;
  IdeaGeneratedEvent?: IdeaGeneratedEventResolvers<ContextType>;
  PolicyCreatedEvent?: PolicyCreatedEventResolvers<ContextType>;
  KillSwitchEngagedEvent?: KillSwitchEngagedEventResolvers<ContextType>;
  KillSwitchReleasedEvent?: KillSwitchReleasedEventResolvers<ContextType>;
  ReportGeneratedEvent?: ReportGeneratedEventResolvers<ContextType>;
  EventList?: EventListResolvers<ContextType>;
  WebhookEndpoint?: WebhookEndpointResolvers<ContextType>;
  WebhookEndpointWithSecret?: WebhookEndpointWithSecretResolvers<ContextType>;
  WebhookEndpointList?: WebhookEndpointListResolvers<ContextType>;
  WebhookEndpointDeleted?: WebhookEndpointDeletedResolvers<ContextType>;
  WebhookDeliveryAttempt?: WebhookDeliveryAttemptResolvers<ContextType>;
  WebhookDeliveryAttemptList?: WebhookDeliveryAttemptListResolvers<ContextType>;
  WebhookTestDelivery?: WebhookTestDeliveryResolvers<ContextType>;
  WebhookRecovery?: WebhookRecoveryResolvers<ContextType>;
};

export type DirectiveResolvers<ContextType = GraphQLContext> = {
  operation?: OperationDirectiveResolver<any, any, ContextType>;
  listSize?: ListSizeDirectiveResolver<any, any, ContextType>;
};
