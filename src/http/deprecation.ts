import type { Request } from 'express';
import { deprecationHeaders } from '../contract/deprecation.js';
import type { Contract, ContractOperation } from '../contract/operations.js';

interface Notice {
  /** The operation's own announcement, sent with every answer of it. */
  headers?: Record<string, string>;
  /** A deprecated query or header parameter's, sent when the request uses it. */
  parameters: { name: string; in: 'query' | 'header'; headers: Record<string, string> }[];
}

/**
 * REST's deprecation headers (`Deprecation`, `Sunset`, `Link`; src/contract/deprecation.ts), prepared once per
 * operation when the channel starts, so that a request adds them with one lookup. An operation without a deprecation
 * (nearly all) has no entry. A deprecation without `x-deprecated-at` (only possible before its release) is announced
 * from `today`, the day the service started.
 */
export class DeprecationNotices {
  private readonly byOperation = new Map<ContractOperation, Notice>();

  constructor(contract: Contract, baseUrl: string, today: string) {
    for (const operation of contract.operations.values()) {
      const parameters = [...operation.parameters, ...operation.headers]
        .filter((p) => p.deprecation && (p.in === 'query' || p.in === 'header'))
        .map((p) => ({
          name: p.in === 'header' ? p.name.toLowerCase() : p.name,
          in: p.in as 'query' | 'header',
          headers: deprecationHeaders(p.deprecation!, baseUrl, today),
        }));
      const headers = operation.deprecation ? deprecationHeaders(operation.deprecation, baseUrl, today) : undefined;
      if (headers || parameters.length > 0) this.byOperation.set(operation, { headers, parameters });
    }
  }

  /** The headers that announce what `req` uses of a deprecated operation or parameter, or undefined. */
  headersFor(operation: ContractOperation, req: Request): Record<string, string> | undefined {
    const notice = this.byOperation.get(operation);
    if (!notice) return undefined;
    if (notice.headers) return notice.headers;
    const query = req.query as Record<string, unknown>;
    return notice.parameters.find((p) => (p.in === 'query' ? query[p.name] : req.headers[p.name]) !== undefined)?.headers;
  }
}
