import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { effects } from '../application/effects.js';
import type { BearerOperationId } from '../auth/authorize.js';

/**
 * MCP tool annotations from each operation's effect: a tool acts on this service's own records (a closed world), but for
 * those that send requests to a webhook endpoint's URL.
 */
export function annotationsOf(operationId: BearerOperationId, title: string): ToolAnnotations {
  const effect = effects[operationId];
  if (effect === 'read') return { title, readOnlyHint: true, openWorldHint: false };
  return {
    title,
    readOnlyHint: false,
    destructiveHint: effect.destructive,
    idempotentHint: effect.idempotent,
    openWorldHint: effect.openWorld ?? false,
  };
}
