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
import { documentOf, retryAfterSeconds } from '../application/failures.js';
import type { Answer } from '../application/idempotency.js';
import { Pipeline, type Outcome, type Present } from '../application/pipeline.js';
import type { ProblemDocument } from '../application/problems.js';
import type { BearerOperationId, Origin } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import { DEPRECATION_NOTICE_PATH } from '../contract/deprecation.js';
import type { Contract } from '../contract/operations.js';
import type { ProblemError } from '../problems.js';
import type { Services } from '../services/index.js';
import { resources, type ResourceDefinition } from './resources.js';
import { buildTools, inputOf, type ToolDefinition } from './tools.js';

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

const INSTRUCTIONS = [
  'Goal-based investing on a paper brokerage account: evaluate goals, read the investment policy, portfolio, ideas, orders and daily reports,',
  'propose trades (generateIdeas) and approve, reject or cancel proposed orders.',
  "Trading is bound by the account's policy, a pre-trade risk gate and a kill switch.",
  "Amounts are in the currency's units, rates and weights are fractions (0.07 = 7 %).",
  'A failed call answers isError with an RFC 9457 problem document (JSON text) whose type URI documents the problem.',
  'A call that changes something is safe to retry with the same Idempotency-Key HTTP header on the request that carries it:',
  'the retry answers the first result and nothing runs twice.',
].join(' ');

/** What one HTTP request brings to the MCP server: the caller, checked once per request, and its Idempotency-Key. */
export interface McpCaller {
  principal: Principal;
  origin: Origin;
  requestId: string;
  /** The request's trace id when tracing is on. */
  traceId?: string | undefined;
  log: Logger;
  /** The `Idempotency-Key` header of the POST that carries a `tools/call`: it keys that call. */
  key?: string;
  /** Told when the call's result is the replay of an earlier call's with the same key. */
  onReplay?: () => void;
}

/** A key's retention when the catalogue is made without the server's pipeline (IDEMPOTENCY_RETENTION_HOURS' default). */
const DEFAULT_RETENTION_MS = 24 * 3_600_000;

/** Everything the MCP server offers, derived once from the contract; each request gets a fresh server over it. */
export class McpCatalogue {
  readonly tools: ToolDefinition[];
  private readonly byName: Map<string, ToolDefinition>;
  readonly contract: Contract;

  constructor(
    readonly document: Contract['document'],
    readonly baseUrl: string,
    private readonly pipeline = Pipeline.of(document, DEFAULT_RETENTION_MS),
  ) {
    this.contract = pipeline.contract;
    this.tools = buildTools(this.contract, `${baseUrl}${DEPRECATION_NOTICE_PATH}`);
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
  problemOf(problem: ProblemError, caller: McpCaller, operationId?: BearerOperationId): ProblemDocument {
    const retryAfter = retryAfterSeconds(problem);
    const operation = operationId && this.contract.operation(operationId);
    return {
      ...documentOf(problem, this.baseUrl, 'mcp', operation),
      ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
      request_id: caller.requestId,
      ...(caller.traceId ? { trace_id: caller.traceId } : {}),
    };
  }

  /** A tool call's outcome as its result (and what a key stores): the answer as JSON, or `isError` with the problem. */
  private presentTool(caller: McpCaller): Present<BearerOperationId> {
    return (outcome: Outcome<BearerOperationId>, operation): Answer => {
      if (!outcome.ok) {
        // The problem travels as text, not structuredContent: the SDK 1.x client checks any structuredContent against
        // the tool's outputSchema, errors included (typescript-sdk#1943), and would discard the problem.
        const problem = this.problemOf(outcome.problem, caller, operation.operationId as BearerOperationId);
        return { status: problem.status, body: { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] } };
      }
      // What REST would send: dates as strings, no undefined members.
      const result = JSON.parse(JSON.stringify(outcome.value)) as Record<string, unknown>;
      return { status: 200, body: { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result } };
    };
  }

  /** A tool call: its operation through the application's pipeline, the caller's key keying it. */
  async callTool(services: Services, caller: McpCaller, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const definition = this.tool(name);
    if (!definition) throw new JsonRpcError(ErrorCode.InvalidParams, `There is no tool "${name}".`, { name });
    const { principal, origin, log, key } = caller;
    const header = key === undefined ? {} : { 'idempotency-key': key };
    const { answer, replayed } = await this.pipeline.run(
      services,
      {
        operationId: definition.operationId,
        channel: 'mcp',
        principal,
        origin,
        log,
        input: () => ({ ...inputOf(definition, args), header }),
        key,
      },
      this.presentTool(caller),
    );
    if (replayed) caller.onReplay?.();
    return answer.body as CallToolResult;
  }

  /** A resource read: the operation that serves the same data, through the pipeline; a failure is a JSON-RPC error carrying its problem. */
  async readResource(services: Services, caller: McpCaller, uri: string) {
    const definition = this.resource(uri);
    if (!definition) throw new JsonRpcError(RESOURCE_NOT_FOUND, `There is no resource ${uri}.`, { uri });
    const { principal, origin, log } = caller;
    let failure: ProblemDocument | undefined;
    const { answer } = await this.pipeline.run(
      services,
      { operationId: definition.operationId, channel: 'mcp', principal, origin, log, input: () => ({}) },
      (outcome): Answer => {
        if (outcome.ok) return { status: 200, body: definition.contents(outcome.value) };
        failure = this.problemOf(outcome.problem, caller);
        return { status: failure.status };
      },
    );
    if (failure)
      throw new JsonRpcError(
        failure.status === 404 ? RESOURCE_NOT_FOUND : ErrorCode.InternalError,
        failure.detail ?? failure.title,
        failure,
      );
    return { contents: [{ uri, mimeType: definition.resource.mimeType, ...(answer.body as object) }] };
  }

  /** A server for one HTTP request (stateless: nothing outlives the request). */
  server(services: Services, caller: McpCaller): Server {
    const info = (this.document as { info: { title: string; version: string } }).info;
    const server = new Server(
      { name: 'investment-automation-service', title: info.title, version: info.version },
      { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.tools.map((t) => t.tool) }));
    server.setRequestHandler(CallToolRequestSchema, (request) =>
      this.callTool(services, caller, request.params.name, request.params.arguments ?? {}),
    );
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: resources.map((r) => r.resource) }));
    server.setRequestHandler(ReadResourceRequestSchema, (request) => this.readResource(services, caller, request.params.uri));
    return server;
  }
}
