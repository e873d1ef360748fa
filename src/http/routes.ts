import type { Operation } from 'openapi-backend';

export type RouteMatch =
  { kind: 'operation'; operation: Operation } | { kind: 'not-found' } | { kind: 'method-not-allowed'; allowed: string[] };

interface TemplateRoute {
  /** The spec's path template, `/v1/orders/{id}`. */
  path: string;
  pattern: RegExp;
  /** Captures each `{param}` in order (as openapi-backend's bath-es5 does: any characters but `/`, percent-decoded). */
  capture: RegExp;
  names: string[];
  /** Length of the template without its `{params}`: the more literal characters, the more specific. */
  specificity: number;
  byMethod: Map<string, Operation>;
}

const escapeRegExp = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The spec's operations, indexed once: exact paths in a map, templated paths as compiled patterns ordered by
 * specificity. Same answers as openapi-backend's router with `ignoreTrailingSlashes: false` (exact path first, then
 * the most literal template that has the method; 405 when a path matches but no method does), without rebuilding
 * every operation object on each call.
 */
export class RouteTable {
  private readonly exact = new Map<string, Map<string, Operation>>();
  private readonly templates: TemplateRoute[] = [];
  private readonly byPath: Map<string, TemplateRoute>;

  constructor(operations: readonly Operation[]) {
    const templates = new Map<string, TemplateRoute>();
    for (const operation of operations) {
      const method = operation.method.toLowerCase();
      if (!operation.path.includes('{')) {
        const byMethod = this.exact.get(operation.path) ?? new Map<string, Operation>();
        byMethod.set(method, operation);
        this.exact.set(operation.path, byMethod);
      }
      let route = templates.get(operation.path);
      if (!route) {
        const pattern = operation.path
          .split(/\{[^}]+\}/)
          .map(escapeRegExp)
          .join('[^/]+');
        const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
        const capture = new RegExp(
          `^${operation.path
            .split(/\{[^}]+\}/)
            .map(escapeRegExp)
            .join('([^/]*)')}$`,
        );
        route = {
          path: operation.path,
          pattern: new RegExp(`^${pattern}$`),
          capture,
          names,
          specificity: operation.path.replace(/\{.*?\}/g, '').length,
          byMethod: new Map(),
        };
        templates.set(operation.path, route);
      }
      route.byMethod.set(method, operation);
    }
    this.byPath = templates;
    this.templates = [...templates.values()].sort((a, b) => b.specificity - a.specificity);
  }

  /**
   * The request path as the router compares it: a leading slash, no query. Trailing slashes are kept (unlike
   * openapi-backend's default): `/v1/orders/` is not `/v1/orders`, so a fuzzer that leaves `{id}` empty gets a 404,
   * not another operation's answer.
   */
  static normalize(rawPath: string): string {
    let path = rawPath.trim();
    const mark = path.indexOf('?');
    if (mark >= 0) path = path.slice(0, mark);
    return path.startsWith('/') ? path : `/${path}`;
  }

  /** The path parameters of a request already matched to `operation` (values percent-decoded). */
  pathParams(operation: { path: string }, rawPath: string): Record<string, string> {
    const route = this.byPath.get(operation.path);
    const found = route?.capture.exec(RouteTable.normalize(rawPath));
    const params: Record<string, string> = {};
    if (!route || !found) return params;
    route.names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1]!)));
    return params;
  }

  /**
   * The spec path a request path names, whatever the method: the path itself when it is one without parameters,
   * else the most literal template it fits; undefined when it names none. (`match` answers the operation, which
   * depends on the method.)
   */
  template(rawPath: string): string | undefined {
    const path = RouteTable.normalize(rawPath);
    if (this.exact.has(path)) return path;
    return this.templates.find((route) => route.pattern.test(path))?.path;
  }

  match(method: string, rawPath: string): RouteMatch {
    const path = RouteTable.normalize(rawPath);
    const verb = method.trim().toLowerCase();
    const exact = this.exact.get(path)?.get(verb);
    if (exact) return { kind: 'operation', operation: exact };
    const candidates = this.templates.filter((route) => route.pattern.test(path));
    if (candidates.length === 0) return { kind: 'not-found' };
    for (const route of candidates) {
      const operation = route.byMethod.get(verb);
      if (operation) return { kind: 'operation', operation };
    }
    const allowed = new Set<string>();
    for (const route of candidates) for (const name of route.byMethod.keys()) allowed.add(name.toUpperCase());
    if (allowed.has('GET')) allowed.add('HEAD');
    return { kind: 'method-not-allowed', allowed: [...allowed] };
  }
}

export interface ParsableRequest {
  method: string;
  path: string;
  query?: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}

/**
 * What openapi-backend's `router.parseRequest(request, operation)` returns, built directly for a request matched to
 * `operation` (without its lodash deep clones and per-call template compilation). Covers the parameters this spec
 * has — path, plain query and header parameters — and no cookie, deepObject, non-exploded or JSON-content ones
 * (test/unit/routes.test.ts holds both: the spec has none, and the answers are the same).
 */
export function parseMatchedRequest(table: RouteTable, request: ParsableRequest, operation: Operation) {
  let requestBody = request.body;
  if (typeof requestBody === 'string' && requestBody) {
    try {
      requestBody = JSON.parse(requestBody);
    } catch {
      // left as it is: validation reports it
    }
  }
  const query: Record<string, unknown> = {};
  const given = request.query;
  if (given)
    for (const name in given) if (Object.hasOwn(given, name)) query[name] = Array.isArray(given[name]) ? [...given[name]] : given[name];
  return {
    method: request.method.toLowerCase(),
    path: RouteTable.normalize(request.path),
    query,
    headers: { ...request.headers },
    body: request.body,
    params: table.pathParams(operation, request.path),
    cookies: {},
    requestBody,
  };
}
