import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { BearerOperationId } from '../auth/authorize.js';

/** What calling an operation does to the account: nothing (a read), or a change described by the MCP hints. */
type Effect = 'read' | { destructive: boolean; idempotent: boolean };

/**
 * The honest effect of every bearer operation (a new operation does not compile until it is classified here).
 * Destructive means the tool may undo or override what is there, rather than only add to it; idempotent
 * means calling it again with the same arguments has no further effect.
 */
const effects: { [K in BearerOperationId]: Effect } = {
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
};

/** MCP tool annotations; every tool acts only on this service's own records (a closed world). */
export function annotationsOf(operationId: BearerOperationId, title: string): ToolAnnotations {
  const effect = effects[operationId];
  if (effect === 'read') return { title, readOnlyHint: true, openWorldHint: false };
  return { title, readOnlyHint: false, destructiveHint: effect.destructive, idempotentHint: effect.idempotent, openWorldHint: false };
}
