import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { authorize, type BearerOperationId, type Origin } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import { Contract } from '../contract/operations.js';
import { errorToReply } from '../http/errors.js';
import type { ProblemDocument } from '../problems.js';
import type { Services } from '../services/index.js';
import { bindings, type ArgumentsOf, type Binding } from './bindings.js';
import { resources, type ResourceDefinition } from './resources.js';
import { buildTools, validateArguments, type ToolDefinition } from './tools.js';

/** MCP's code for a resource that does not exist (the specification's choice, not JSON-RPC's). */
const RESOURCE_NOT_FOUND = -32002;

/** A JSON-RPC error whose `data` is the problem document (McpError would prefix its code to the message twice on the wire). */
class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

const INSTRUCTIONS = `Goal-based investing on a paper brokerage account: evaluate goals, read the investment policy, portfolio, ideas, orders and daily reports, propose trades (generateIdeas) and approve, reject or cancel proposed orders. Trading is bound by the account's policy, a pre-trade risk gate and a kill switch. Amounts are in the currency's units, rates and weights are fractions (0.07 = 7 %). A failed call answers isError with an RFC 9457 problem document (JSON text) whose type URI documents the problem.`;

/** What one HTTP request brings to the MCP server: the caller, checked once per request. */
export interface McpCaller {
  principal: Principal;
  origin: Origin;
  requestId: string;
  log: Logger;
}

/** Everything the MCP server offers, derived once from the contract; each request gets a fresh server over it. */
export class McpCatalogue {
  readonly tools: ToolDefinition[];
  private readonly byName: Map<string, ToolDefinition>;
  readonly contract: Contract;

  constructor(readonly document: Contract['document'], readonly baseUrl: string) {
    this.contract = new Contract(document);
    this.tools = buildTools(this.contract);
    this.byName = new Map(this.tools.map((t) => [t.tool.name, t]));
  }

  tool(name: unknown): ToolDefinition | undefined {
    return typeof name === 'string' ? this.byName.get(name) : undefined;
  }

  resource(uri: unknown): ResourceDefinition | undefined {
    return resources.find((r) => r.resource.uri === uri);
  }

  /** The operation a JSON-RPC request runs, whose scopes it needs: a tool call or a resource read. */
  operationOf(message: unknown): BearerOperationId | undefined {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown; uri?: unknown } };
    if (method === 'tools/call') return this.tool(params?.name)?.operationId;
    if (method === 'resources/read') return this.resource(params?.uri)?.operationId;
    return undefined;
  }

  /**
   * The problem document of a failure, as REST would answer it; validation pointers point into the tool's arguments.
   * MCP has no response headers per call: REST's `Retry-After` travels as `retry_after` (seconds), as in GraphQL.
   */
  problemOf(error: unknown, caller: McpCaller): ProblemDocument {
    const reply = errorToReply(error, this.baseUrl, caller.log);
    const retryAfter = reply.headers?.['Retry-After'];
    return { ...(reply.body as ProblemDocument), ...(retryAfter ? { retry_after: Number(retryAfter) } : {}), request_id: caller.requestId };
  }

  async callTool(services: Services, caller: McpCaller, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const definition = this.tool(name);
    if (!definition) throw new JsonRpcError(ErrorCode.InvalidParams, `There is no tool "${name}".`, { name });
    try {
      const actor = authorize(caller.principal, definition.operationId, caller.origin, 'mcp');
      validateArguments(this.contract, definition, args);
      const bind = bindings[definition.operationId] as Binding<typeof definition.operationId>;
      // What REST would send: dates as strings, no undefined members.
      const result = JSON.parse(JSON.stringify(await bind(services, actor, args as ArgumentsOf<typeof definition.operationId>)));
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      // The problem travels as text, not structuredContent: the SDK 1.x client checks any structuredContent against
      // the tool's outputSchema, errors included (typescript-sdk#1943), and would discard the problem.
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(this.problemOf(error, caller)) }] };
    }
  }

  async readResource(services: Services, caller: McpCaller, uri: string) {
    const definition = this.resource(uri);
    if (!definition) throw new JsonRpcError(RESOURCE_NOT_FOUND, `There is no resource ${uri}.`, { uri });
    try {
      const actor = authorize(caller.principal, definition.operationId, caller.origin, 'mcp');
      const contents = await definition.read(services, actor);
      return { contents: [{ uri, mimeType: definition.resource.mimeType, ...contents }] };
    } catch (error) {
      const problem = this.problemOf(error, caller);
      throw new JsonRpcError(problem.status === 404 ? RESOURCE_NOT_FOUND : ErrorCode.InternalError, problem.detail ?? problem.title, problem);
    }
  }

  /** A server for one HTTP request (stateless: nothing outlives the request). */
  server(services: Services, caller: McpCaller): Server {
    const info = (this.document as { info: { title: string; version: string } }).info;
    const server = new Server(
      { name: 'investment-automation-service', title: info.title, version: info.version },
      { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.tools.map((t) => t.tool) }));
    server.setRequestHandler(CallToolRequestSchema, (request) => this.callTool(services, caller, request.params.name, request.params.arguments ?? {}));
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: resources.map((r) => r.resource) }));
    server.setRequestHandler(ReadResourceRequestSchema, (request) => this.readResource(services, caller, request.params.uri));
    return server;
  }
}
