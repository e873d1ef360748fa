import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { operationScopes } from '../../generated/operation-scopes.js';
import { requiredScopes, type BearerOperationId } from '../auth/authorize.js';
import { deprecationText } from '../contract/deprecation.js';
import type { Contract, ContractOperation, OperationInput } from '../contract/operations.js';
import type { FieldProblem } from '../services/errors.js';
import { annotationsOf } from './annotations.js';
import { selfContained, type JsonSchema } from './schemas.js';

/** One tool per bearer operation of the contract: its MCP listing and how its flat arguments split back. */
export interface ToolDefinition {
  operationId: BearerOperationId;
  tool: Tool;
  /** Where each parameter goes; every other argument is a member of the JSON body. */
  parameters: Map<string, 'path' | 'query'>;
  body: { required: boolean } | undefined;
  /** Body members this tool requires beyond the operation's (the contract's `x-mcp-required`). */
  mcpRequired: string[];
}

function describe(operation: ContractOperation, operationId: BearerOperationId, noticeUrl: string): string {
  const scopes = requiredScopes(operationId, 'mcp')
    .map((set) => set.map((s) => `\`${s}\``).join(' and '))
    .join(', or ');
  // A deprecated tool says so first, where an assistant choosing among tools reads.
  const deprecated = operation.deprecation ? deprecationText(operation.deprecation, noticeUrl) : undefined;
  return [deprecated, operation.summary, operation.description.trim(), `Requires the scopes ${scopes}.`].filter(Boolean).join('\n\n');
}

function inputSchema(operation: ContractOperation, document: object): JsonSchema {
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const parameter of operation.parameters) {
    properties[parameter.name] = {
      ...selfContained(parameter.schema, document),
      ...(parameter.description ? { description: parameter.description } : {}),
    };
    if (parameter.required) required.push(parameter.name);
  }
  let additionalProperties: unknown = false;
  if (operation.body) {
    const body = selfContained(operation.body.schema, document);
    if (body.type !== 'object' || !body.properties)
      throw new Error(`${operation.operationId}: only an object body can be flattened into tool arguments`);
    for (const [name, member] of Object.entries(body.properties as JsonSchema)) {
      if (name in properties) throw new Error(`${operation.operationId}: body member "${name}" collides with a parameter of that name`);
      properties[name] = member;
    }
    const members = (body.required ?? []) as string[];
    if (!operation.body.required && members.length > 0)
      throw new Error(`${operation.operationId}: an optional body with required members cannot be flattened`);
    required.push(...members, ...operation.mcpRequired);
    additionalProperties = body.additionalProperties ?? true;
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties };
}

function outputSchema(operation: ContractOperation, document: object): JsonSchema {
  if (!operation.success) throw new Error(`${operation.operationId}: a tool needs a JSON success response`);
  const schema = selfContained(operation.success.schema, document);
  if (schema.type !== 'object') throw new Error(`${operation.operationId}: MCP output schemas must be objects`);
  return schema;
}

/**
 * The tools of the contract: name = operationId, texts from the operation, schemas from its parameters, body and
 * success response. A deprecated operation's tool says so in its description and its title (`noticeUrl` explains).
 */
export function buildTools(contract: Contract, noticeUrl: string): ToolDefinition[] {
  const document = contract.document;
  return (Object.keys(operationScopes) as BearerOperationId[]).map((operationId) => {
    const operation = contract.operation(operationId);
    const title = operation.deprecation ? `${operation.summary} (deprecated)` : operation.summary;
    return {
      operationId,
      tool: {
        name: operationId,
        title,
        description: describe(operation, operationId, noticeUrl),
        inputSchema: inputSchema(operation, document) as Tool['inputSchema'],
        outputSchema: outputSchema(operation, document) as Tool['outputSchema'],
        annotations: annotationsOf(operationId, title),
      },
      parameters: new Map(operation.parameters.map((p) => [p.name, p.in as 'path' | 'query'])),
      body: operation.body ? { required: operation.body.required } : undefined,
      mcpRequired: operation.mcpRequired,
    };
  });
}

/**
 * A tool's flat arguments as its operation's input: split back into the path, query and body the contract declares
 * (the pipeline validates them as REST's). An argument that is neither a parameter nor a body member of an operation
 * without a body is refused as an unknown field.
 */
export function inputOf(definition: ToolDefinition, args: Record<string, unknown>): OperationInput & { found: FieldProblem[] } {
  const input: Required<Pick<OperationInput, 'path' | 'query'>> & { body: Record<string, unknown> } = { path: {}, query: {}, body: {} };
  for (const [name, value] of Object.entries(args)) input[definition.parameters.get(name) ?? 'body'][name] = value;
  const found = definition.body ? [] : Object.keys(input.body).map((field) => ({ field, detail: 'is not a known field' }));
  for (const field of definition.mcpRequired)
    if (!(field in input.body)) found.push({ field, detail: 'is required over MCP (the contract marks it x-mcp-required)' });
  const sendBody = definition.body && (definition.body.required || Object.keys(input.body).length > 0);
  return { path: input.path, query: input.query, ...(sendBody ? { body: input.body } : {}), found };
}

/** Checks a tool's arguments as the pipeline does for a call: split back (inputOf), validated by the contract. */
export function validateArguments(contract: Contract, definition: ToolDefinition, args: Record<string, unknown>): void {
  const { found, ...input } = inputOf(definition, args);
  contract.check(definition.operationId, input, { found });
}
