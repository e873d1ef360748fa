import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestServer } from './server.js';

/** The stock MCP SDK client, connected to the test server's `/mcp` (or any service's at `url`) with a bearer token. */
export async function connectMcp(server: Pick<TestServer, 'url'>, token: string): Promise<Client> {
  const client = new Client({ name: 'ias-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool; answers its structured result, or the problem document of an isError result. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}, options?: RequestOptions) {
  const result = (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
  const text = result.content.find((c) => c.type === 'text');
  if (result.isError) return { ok: false as const, problem: JSON.parse(text && 'text' in text ? text.text : 'null'), result };
  return { ok: true as const, value: result.structuredContent as any, result };
}

/** One JSON-RPC request POSTed to `/mcp` as a Streamable HTTP client sends it, without the SDK: status, headers and body. */
export function rpc(
  server: TestServer,
  token: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return rpcText(server, token, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), headers);
}

/** Like `rpc`, with the JSON-RPC message as written (for what JSON.stringify cannot write: 1e400). */
export async function rpcText(server: TestServer, token: string | undefined, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** A problem document without what names one occurrence, to compare the answers of two interfaces. */
export function sameProblem(problem: Record<string, unknown>) {
  const { instance: _instance, request_id: _requestId, ...rest } = problem;
  return rest;
}
