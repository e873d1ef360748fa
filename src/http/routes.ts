import type { Operation } from 'openapi-backend';

export type RouteMatch =
  | { kind: 'operation'; operation: Operation }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed'; allowed: string[] };

interface TemplateRoute {
  pattern: RegExp;
  /** Length of the template without its `{params}`: the more literal characters, the more specific. */
  specificity: number;
  byMethod: Map<string, Operation>;
}

const escapeRegExp = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The spec's operations, indexed once: exact paths in a map, templated paths as compiled patterns ordered by
 * specificity. Same answers as openapi-backend's router (exact path first, then the most literal template that has
 * the method; trailing slashes ignored; 405 when a path matches but no method does), without rebuilding every
 * operation object on each call.
 */
export class RouteTable {
  private readonly exact = new Map<string, Map<string, Operation>>();
  private readonly templates: TemplateRoute[] = [];

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
        const pattern = operation.path.split(/\{[^}]+\}/).map(escapeRegExp).join('[^/]+');
        route = { pattern: new RegExp(`^${pattern}$`), specificity: operation.path.replace(/\{.*?\}/g, '').length, byMethod: new Map() };
        templates.set(operation.path, route);
      }
      route.byMethod.set(method, operation);
    }
    this.templates = [...templates.values()].sort((a, b) => b.specificity - a.specificity);
  }

  match(method: string, rawPath: string): RouteMatch {
    let path = rawPath.trim().split('?')[0] ?? '';
    if (!path.startsWith('/')) path = `/${path}`;
    while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
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
    return { kind: 'method-not-allowed', allowed: [...allowed] };
  }
}
