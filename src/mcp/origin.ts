import type { IncomingHttpHeaders } from 'node:http';
import { ProblemError } from '../problems.js';

/** Names a browser resolves to this machine: a page of any site can reach a service on them by DNS rebinding. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

function originOf(value: string): string | undefined {
  try {
    return new URL(value).origin;
  } catch {
    return undefined; // "null" (a sandboxed page, a file) and anything else that is not a URL
  }
}

/**
 * The MCP transport's DNS-rebinding guard (Streamable HTTP: servers MUST validate `Origin`). A request from a
 * browser carries `Origin`; it must be the service's own (BASE_URL's) or one the operator allows. A request
 * without one (a server-to-server client: MCP SDKs, curl) passes. When BASE_URL names a loopback host, where a
 * rebinding page would reach the service under its own name, the `Host` must be a loopback name as well. The
 * MCP SDK's transport has the same check (`enableDnsRebindingProtection`), but it answers a JSON-RPC error after
 * authentication; this answers the API's problem before anything else is done.
 */
export function originGuard(
  baseUrl: string,
  allowedOrigins: readonly string[],
): (headers: IncomingHttpHeaders) => ProblemError | undefined {
  const own = new URL(baseUrl);
  const origins = new Set([own.origin, ...allowedOrigins]);
  const local = LOOPBACK.has(own.hostname);
  return (headers) => {
    const origin = headers.origin;
    if (origin !== undefined && !origins.has(originOf(origin) ?? '')) {
      return new ProblemError(
        'origin-not-allowed',
        `Requests from the origin "${origin.slice(0, 200)}" are not allowed here; ` +
          `the MCP server accepts its own origin (${own.origin}), those its operator allows, and requests without Origin.`,
      );
    }
    if (local && !LOOPBACK.has(hostnameOf(headers.host ?? '') ?? '')) {
      return new ProblemError(
        'origin-not-allowed',
        `This MCP server runs on ${own.hostname} and answers only a loopback Host (localhost, 127.0.0.1, [::1]), not "${(headers.host ?? '').slice(0, 200)}".`,
      );
    }
    return undefined;
  };
}
