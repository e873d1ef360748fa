import type { BearerOperationId } from '../auth/authorize.js';

/**
 * What calling an operation does to the account: nothing (a read), or a change; `openWorld` when the change reaches
 * beyond the service's records (a request to a webhook endpoint).
 */
export type Effect = 'read' | { destructive: boolean; idempotent: boolean; openWorld?: true };

/**
 * The honest effect of every bearer operation (a new operation does not compile until it is classified here). The
 * pipeline runs a keyed `read` (goal feasibility: a POST that computes and stores nothing) outside its key's
 * transaction; MCP lists the effects as tool annotations. Destructive means the call may undo or override what is
 * there, rather than only add to it; idempotent means calling it again with the same input has no further effect.
 */
export const effects: { [K in BearerOperationId]: Effect } = {
  // Reads, and feasibility: a pure computation that stores nothing.
  evaluateGoalFeasibility: 'read',
  getCurrentDisclosure: 'read',
  listPolicies: 'read',
  getCurrentPolicy: 'read',
  getPolicy: 'read',
  getPortfolio: 'read',
  listBrokers: 'read',
  getKillSwitch: 'read',
  listIdeas: 'read',
  getIdea: 'read',
  listOrders: 'read',
  getOrder: 'read',
  listDailyReports: 'read',
  getDailyReport: 'read',
  listEvents: 'read',
  getEvent: 'read',
  listWebhookEndpoints: 'read',
  getWebhookEndpoint: 'read',
  listWebhookEndpointDeliveries: 'read',
  // Runs an approval's checks and changes nothing of the account (it keeps the preview, for an approval to refer to).
  previewOrder: 'read',
  // Each call adds a policy version (earlier ones stay readable) or a new idea with new proposed orders.
  createPolicy: { destructive: false, idempotent: false },
  generateIdeas: { destructive: false, idempotent: false },
  // Regenerating a date rewrites the same deterministic content (only generated_at moves).
  generateDailyReport: { destructive: false, idempotent: true },
  // Stops every approval until a human releases it, but removes nothing; engaging an engaged switch changes nothing.
  engageKillSwitch: { destructive: false, idempotent: true },
  // An order moves at most once out of `proposed`: approval spends cash (a fill cannot be undone), rejection and
  // cancellation end the order for good; repeating the trigger is refused with invalid-state and changes nothing.
  approveOrder: { destructive: true, idempotent: true },
  rejectOrder: { destructive: true, idempotent: true },
  cancelOrder: { destructive: true, idempotent: true },
  // Each call adds an endpoint, with a secret of its own.
  createWebhookEndpoint: { destructive: false, idempotent: false },
  // Overwrites the URL, types, description or state the body names; the same body again changes nothing more.
  updateWebhookEndpoint: { destructive: true, idempotent: true },
  // The endpoint and its delivery log go for good; deleting again is not-found and changes nothing.
  deleteWebhookEndpoint: { destructive: true, idempotent: true },
  // Each call makes a new secret, and the one before the previous stops signing.
  rotateWebhookEndpointSecret: { destructive: true, idempotent: false },
  // Each call sends a request to the endpoint's URL (a test event, the failed deliveries again).
  testWebhookEndpoint: { destructive: false, idempotent: false, openWorld: true },
  recoverWebhookEndpointDeliveries: { destructive: false, idempotent: false, openWorld: true },
};
