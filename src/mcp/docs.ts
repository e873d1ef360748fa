import type { RequestHandler } from 'express';
import { requiredScopes } from '../auth/authorize.js';
import { escapeHtml, sendPage } from '../http/docs.js';
import { GUIDES_PATH } from '../http/guides.js';
import { MCP_PATH } from '../services/oauth.js';
import { resources } from './resources.js';
import type { McpCatalogue } from './server.js';

const code = (text: string) => `<code>${escapeHtml(text)}</code>`;

function hints(annotations: Record<string, unknown> = {}): string {
  if (annotations.readOnlyHint) return 'read-only';
  return [
    annotations.destructiveHint ? 'destructive' : 'additive',
    annotations.idempotentHint ? 'idempotent' : 'not idempotent',
    ...(annotations.openWorldHint ? ['sends to a webhook endpoint (open world)'] : []),
  ].join(', ');
}

/** `/docs/mcp`: how an assistant connects, and the tools and resources, from the same catalogue the server lists. */
export function mcpDocsPage(catalogue: McpCatalogue): RequestHandler {
  const url = `${catalogue.baseUrl}${MCP_PATH}`;
  const tools = catalogue.tools
    .map(({ operationId, tool }) => {
      const scopes = requiredScopes(operationId, 'mcp')[0]!.join(' ');
      return `<dt>${code(tool.name)} — ${escapeHtml(tool.title ?? tool.name)}</dt><dd>scopes ${code(scopes)} · ${hints(tool.annotations)}</dd>`;
    })
    .join('');
  const listed = resources
    .map(
      ({ resource }) =>
        `<dt>${code(resource.uri)} (${escapeHtml(resource.mimeType ?? '')})</dt><dd>${escapeHtml(resource.description ?? '')}</dd>`,
    )
    .join('');
  const body = `<p><a href="/docs">API reference</a> · <a href="${GUIDES_PATH}/mcp">MCP guide</a> · <a href="/problems">Problem types</a></p>
<h1>MCP server</h1>
<p>AI assistants reach the service through the Model Context Protocol (Streamable HTTP, stateless) at ${code(url)}.
Every request carries ${code('Authorization: Bearer <access token>')}: a client-credentials token from
${code(`${catalogue.baseUrl}/oauth/token`)} (optionally with ${code(`resource=${url}`)}) holding ${code('mcp')} and the scope of each tool it calls.
Without a valid token the answer is 401, with ${code('WWW-Authenticate')} naming the protected resource metadata; a token without a tool's scopes gets 403
${code('insufficient_scope')} naming them. A tool that fails answers ${code('isError')} with the RFC 9457 problem document REST would answer, as JSON text.</p>
<p>Send one JSON-RPC message per request: a batch (an array) is refused with HTTP 400 and the JSON-RPC error ${code('-32600')},
as MCP 2025-06-18 removed batching. A browser page may call the server
only from its own origin (${code(new URL(catalogue.baseUrl).origin)}) or one the operator allows; another ${code('Origin')} is 403
${code('origin-not-allowed')} (DNS rebinding protection). Requests without ${code('Origin')}, as server-to-server clients send them, are accepted.</p>
<p>A call that changes something is safe to retry with ${code('Idempotency-Key: <unique string>')} on the HTTP request that carries the ${code('tools/call')}
(1 to 255 visible ASCII characters): the same key and arguments again answer the identical tool result,
with ${code('Idempotent-Replayed: true')}, and nothing runs twice; the key with other arguments is the ${code('idempotency-key-reused')}
problem, while the first call still runs ${code('idempotency-key-in-use')}. The rules are REST's.</p>
<h2>Tools</h2>
<p>One per API operation, named by its operationId; inputs are the operation's parameters and body members, outputs its success response.</p>
<dl>${tools}</dl>
<h2>Resources</h2><dl>${listed}</dl>`;
  return (_req, res) => sendPage(res, 'MCP server', body);
}
