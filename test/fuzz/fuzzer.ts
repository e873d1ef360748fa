import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc, { type Arbitrary } from 'fast-check';
import { resolved } from '../../src/contract/refs.js';
import { assertConforms } from '../support/conformance.js';
import { curlOf, rawRequest, type RawRequest, type RawResponse } from './raw-http.js';
import { SchemaArbitraries } from './schema-arbitrary.js';
import { fuzzOperations, type FuzzOperation, type Parameter } from './operations.js';
import { DeadlineMissed, type ServiceWatch } from './watch.js';

type Json = Record<string, any>;

/** Who a request claims to be. */
export interface Credentials {
  /** A token holding every scope. */
  full: string;
  /** A token holding only `read`. */
  readOnly: string;
  /** `client_id:client_secret` of a client, for the token endpoint. */
  basic: string;
}

/** A generated request and whether it breaks the contract on purpose (then it must be refused with a 4xx). */
export interface Case {
  operationId: string;
  request: RawRequest;
  breaks: string | undefined;
}

export interface Finding {
  operationId: string;
  problem: string;
  curl: string;
}

/** Who a generated request claims to be: a token with every scope, one with `read`, none, a garbage one, or Basic. */
type Who = 'full' | 'read' | 'none' | 'garbage' | 'basic';
/** A parameter's text on the wire, and what it breaks when it breaks the schema on purpose. */
type ParameterValue = { text: string; breaks?: string };
type Payload = { text?: string; contentType?: string; breaks?: string };

const CONTROL = fc.constantFrom('\x01', '\x1f', '\x7f', '\x00', 'a\x08b');
const PATH_JUNK = fc.constantFrom(
  '%',
  '%zz',
  '%E0%A4%A',
  '..',
  '%2e%2e',
  '%00',
  '%20%31',
  '0x10',
  '1e3',
  '01',
  ' 1',
  '-1',
  'a'.repeat(300),
  '%2F',
);

const deref = (document: Json, node: Json): Json => resolved(document, node);

/**
 * A property-based fuzzer driven by the contract: for every operation it generates requests (valid and invalid
 * path, query, header and body values, with and without a token) and holds every answer to the contract.
 */
export class ContractFuzzer {
  readonly operations: FuzzOperation[];
  readonly schemas: SchemaArbitraries;
  /** How often each operation answered each status: how deep the generated requests got. */
  readonly statuses = new Map<string, Map<number, number>>();
  private readonly ajv = new Ajv2020.default({ strict: false, allErrors: true });

  /**
   * @param watch when given, every request goes through it: ended at its deadline, and named when the service's
   * memory crosses its bound while it is in flight.
   */
  constructor(
    readonly document: Json,
    readonly watch?: ServiceWatch,
  ) {
    this.schemas = new SchemaArbitraries(document);
    addFormats.default(this.ajv);
    this.ajv.addSchema(document, 'openapi.json');
    this.operations = fuzzOperations(document);
  }

  /** A value for one parameter: valid, or (when `breaking`) one the schema refuses, as the text sent on the wire. */
  private parameterValue(parameter: Parameter): Arbitrary<ParameterValue> {
    const valid = this.schemas.valid(parameter.schema).map((v) => ({ text: String(v) }));
    const isString = deref(this.document, parameter.schema).type === 'string';
    const invalid = this.schemas
      .invalid(parameter.schema)
      // On the wire every parameter is text: a number (0) can be a valid value of a string parameter once written.
      .filter((v): v is string | number | boolean | undefined => v === undefined || ['string', 'number', 'boolean'].includes(typeof v))
      .filter((v) => !(isString && this.schemas.accepts(parameter.schema, String(v))))
      .map((v) => ({ text: String(v), breaks: `${parameter.in} ${parameter.name}` }));
    const arbitraries: Arbitrary<ParameterValue>[] = [valid, valid, invalid];
    if (parameter.in === 'header')
      arbitraries.push(CONTROL.map((c) => ({ text: `k${c}`, breaks: `header ${parameter.name} holds a control character` })));
    if (parameter.in === 'path')
      arbitraries.push(PATH_JUNK.map((text) => ({ text, breaks: `path ${parameter.name} is not a valid value` })));
    return fc.oneof(...arbitraries);
  }

  /** Requests for one operation. */
  cases(operation: FuzzOperation, credentials: Credentials): Arbitrary<Case> {
    const parameters = fc.tuple(
      ...operation.parameters.map((p) =>
        p.required
          ? this.parameterValue(p).map((v) => ({ p, v }))
          : fc.option(this.parameterValue(p), { nil: undefined, freq: 2 }).map((v) => ({ p, v })),
      ),
    );
    const auth = fc.constantFrom<Who>('full', 'full', 'full', 'read', 'none', 'garbage', ...(operation.bearer ? [] : (['basic'] as const)));
    const body = this.body(operation);
    return fc.tuple(parameters, auth, body).map(([values, who, payload]) => this.assemble(operation, credentials, values, who, payload));
  }

  /**
   * The request the spec's own examples make (every parameter and the body it shows an example for, with a token
   * holding every scope), as Schemathesis's examples phase sends: deep by construction (a generated market is the
   * one the paper broker trades, US, only one time in twelve). Undefined when the spec shows nothing to send.
   */
  declared(operation: FuzzOperation, credentials: Credentials): Case | undefined {
    const values = operation.parameters.filter((p) => p.example !== undefined).map((p) => ({ p, v: { text: String(p.example) } }));
    const example = operation.body?.example;
    if (!values.length && example === undefined) return undefined;
    const payload =
      example === undefined ? {} : { text: this.encode(operation.body!.mediaType, example), contentType: operation.body!.mediaType };
    return this.assemble(operation, credentials, values, operation.bearer ? 'full' : operation.clientBasic ? 'basic' : 'none', payload);
  }

  private assemble(
    operation: FuzzOperation,
    credentials: Credentials,
    values: { p: Parameter; v: ParameterValue | undefined }[],
    who: Who,
    payload: Payload,
  ): Case {
    let path = operation.path;
    const query: string[] = [];
    const headers: [string, string][] = [];
    const breaks: string[] = [];
    for (const { p, v } of values) {
      if (!v) continue;
      if (v.breaks) breaks.push(v.breaks);
      const encoded =
        v.breaks && p.in === 'path'
          ? v.text.replace(/[^\x21-\x7e]/g, encodeURIComponent).replace(/[/?#]/g, encodeURIComponent)
          : encodeURIComponent(v.text);
      if (p.in === 'path') path = path.replace(`{${p.name}}`, encoded);
      else if (p.in === 'query') query.push(`${encodeURIComponent(p.name)}=${encoded}`);
      else headers.push([p.name, v.text]);
    }
    if (who === 'full') headers.push(['Authorization', `Bearer ${credentials.full}`]);
    if (who === 'read') headers.push(['Authorization', `Bearer ${credentials.readOnly}`]);
    if (who === 'garbage') headers.push(['Authorization', 'Bearer not.a.token']);
    if (who === 'basic') headers.push(['Authorization', `Basic ${Buffer.from(credentials.basic).toString('base64')}`]);
    if (payload.contentType) headers.push(['Content-Type', payload.contentType]);
    if (payload.breaks) breaks.push(payload.breaks);
    const target = `${path}${query.length ? `?${query.join('&')}` : ''}`;
    return {
      operationId: operation.operationId,
      request: { method: operation.method, target, headers, body: payload.text },
      breaks: breaks.length ? breaks.join('; ') : undefined,
    };
  }

  private encode(mediaType: string, value: unknown): string {
    return mediaType === 'application/x-www-form-urlencoded'
      ? new URLSearchParams(Object.entries(value as object).map(([k, v]) => [k, String(v)])).toString()
      : JSON.stringify(value);
  }

  private body(operation: FuzzOperation): Arbitrary<Payload> {
    const declared = operation.body;
    // A body on GET is ignored (documented); on other methods that take none it is refused.
    if (!declared)
      return fc.oneof(
        fc.constant({}),
        fc.constant({}),
        fc.constant({
          text: '{"x":1}',
          contentType: 'application/json',
          breaks: operation.method === 'GET' ? undefined : 'a body the operation does not take',
        }),
      );
    const encode = (value: unknown) => this.encode(declared.mediaType, value);
    const valid = this.schemas.valid(declared.schema).map((value) => ({ text: encode(value), contentType: declared.mediaType }));
    const invalid = this.schemas
      .invalid(declared.schema)
      .filter(
        (value) => declared.mediaType === 'application/json' || (value !== null && typeof value === 'object' && !Array.isArray(value)),
      )
      .map((value) => ({ text: encode(value), contentType: declared.mediaType, breaks: 'body violates its schema' }));
    const malformed = fc.constantFrom(
      { text: '{"unterminated', contentType: declared.mediaType, breaks: 'body is not well-formed' },
      { text: 'plain text', contentType: 'text/plain', breaks: 'body has an undeclared media type' },
    );
    const options: Arbitrary<Payload>[] = [valid, valid, valid, invalid, malformed];
    options.push(declared.required ? fc.constant({ breaks: 'the required body is missing' }) : fc.constant({}));
    return fc.oneof(...options);
  }

  /** Sends a case and holds the answer to the contract; a finding names what is wrong and how to reproduce it. */
  async check(port: number, baseUrl: string, testCase: Case): Promise<Finding | undefined> {
    return (await this.send(port, baseUrl, testCase)).finding;
  }

  /** Like `check`, with the answer (when there was one) for a caller that reads it. */
  async send(port: number, baseUrl: string, testCase: Case): Promise<{ finding?: Finding; response?: RawResponse }> {
    const curl = curlOf(baseUrl, testCase.request);
    const finding = (problem: string) => ({ operationId: testCase.operationId, problem, curl });
    let response: RawResponse;
    try {
      const exchange = (signal?: AbortSignal) => rawRequest(port, testCase.request, signal);
      response = this.watch ? await this.watch.exchange(curl, exchange) : await exchange();
    } catch (error) {
      return { finding: finding(error instanceof DeadlineMissed ? error.message : `no HTTP answer: ${(error as Error).message}`) };
    }
    const counts = this.statuses.get(testCase.operationId) ?? new Map<number, number>();
    counts.set(response.status, (counts.get(response.status) ?? 0) + 1);
    this.statuses.set(testCase.operationId, counts);
    return { finding: this.judge(testCase, response, finding), response };
  }

  judge(testCase: Case, response: RawResponse, finding: (problem: string) => Finding): Finding | undefined {
    const { status, headers } = response;
    const contentType = headers['content-type'] ?? null;
    let body: unknown = response.body === '' ? undefined : response.body;
    if (contentType?.includes('json') && response.body) {
      try {
        body = JSON.parse(response.body);
      } catch {
        return finding(`${status} with a ${contentType} body that is not JSON`);
      }
    }
    const path = testCase.request.target.split('?')[0]!;
    const operation = this.operations.find((o) => o.operationId === testCase.operationId)!;
    if (status >= 500 && !(status === 503 && '503' in operation.responses)) return finding(`answered ${status}`);
    try {
      assertConforms(testCase.request.method, path, status, contentType, body);
    } catch (error) {
      return finding((error as Error).message);
    }
    const declared = deref(this.document, operation.responses[String(status)] ?? {});
    for (const [name, header] of Object.entries((declared.headers ?? {}) as Json)) {
      const declaredHeader = deref(this.document, header);
      const value = headers[name.toLowerCase()];
      if (value === undefined) {
        if (declaredHeader.required) return finding(`${status} lacks the required header ${name}`);
        continue;
      }
      // A header is text on the wire; an integer or number schema is read as the decimal it holds.
      const schema = deref(this.document, declaredHeader.schema ?? {});
      const typed = (schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      if (declaredHeader.schema && !this.ajv.validate(schema, typed)) {
        return finding(`${status} header ${name}: ${JSON.stringify(value)} breaks its schema (${this.ajv.errorsText()})`);
      }
    }
    if (testCase.breaks && (status < 400 || status >= 500))
      return finding(`accepted a request that breaks the contract (${testCase.breaks}) with ${status}`);
    return undefined;
  }

  /** Every operation's cases, as one arbitrary. */
  allCases(credentials: Credentials, filter: (operation: FuzzOperation) => boolean = () => true): Arbitrary<Case> {
    return fc.oneof(...this.operations.filter(filter).map((operation) => this.cases(operation, credentials)));
  }
}
