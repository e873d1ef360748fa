import type { TestServer } from '../support/server.js';

export interface GraphQLResponse<T = any> {
  status: number;
  headers: Headers;
  body: { data?: T | null; errors?: any[] } & Record<string, any>;
}

export interface GraphQLRequest {
  token?: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  headers?: Record<string, string>;
  /** The body as sent, instead of one built from `query` and `variables` (for what JSON.stringify cannot write: 1e400). */
  body?: string;
}

/** POSTs one GraphQL operation to /graphql as a client would (JSON in, JSON out). */
export async function graphql<T = any>(server: TestServer, query: string, options: GraphQLRequest = {}): Promise<GraphQLResponse<T>> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    ...options.headers,
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${server.api.baseUrl}/graphql`, {
    method: 'POST',
    headers,
    body: options.body ?? JSON.stringify({ query, variables: options.variables, operationName: options.operationName }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}
