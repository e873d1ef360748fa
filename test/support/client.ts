import { assertConforms } from './conformance.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  json?: unknown;
  form?: Record<string, string>;
  body?: string;
  headers?: Record<string, string>;
  /** Skip the spec-conformance check (only for responses the test inspects for being non-conforming on purpose). */
  unchecked?: boolean;
}

/** A black-box HTTP client for tests: every response it sees is checked against openapi.json. */
export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined = options.body;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    if (options.form) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    const parsed = contentType?.includes('json') && text ? JSON.parse(text) : text;
    if (!options.unchecked) assertConforms(method, path.split('?')[0]!, response.status, contentType, text === '' ? undefined : parsed);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }

  post<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('POST', path, options);
  }
}
