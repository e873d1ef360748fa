import { GraphQLError, Kind, parse, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import { costRule, type CostModel } from './cost.js';
import { depthRule } from './depth.js';

/** The abuse limits of /graphql; schema.graphql and docs/graphql.md state the same numbers (a test holds them together). */
export const LIMITS = {
  maxDocumentLength: 8192,
  maxDepth: 6,
  maxCost: 10_000,
  rootFieldCost: 100,
  maxPageSize: 100,
  // goalFeasibility: 100 + 900 for a 100-year horizon with a contribution (1200 months), so a document holds at most
  // nine such computations (at most ~100 ms of CPU each); a handful of ordinary ones pass (30 years: 370).
  feasibilityMonthCost: 0.75,
  feasibilityMonthCostWithoutContribution: 0.5,
} as const satisfies CostModel & Record<string, number>;

/**
 * Documents parsed lately, by their text: clients send the same few documents again and again (an SDK's operations),
 * and parsing and validating one costs more than running it. At most MAX_CACHED_DOCUMENTS (each at most
 * maxDocumentLength characters), the least recently used going first. A document is never changed once parsed
 * (graphql-js only reads it), so one object serves every request that sends its text.
 */
const parsed = new Map<string, DocumentNode>();
const MAX_CACHED_DOCUMENTS = 500;

/** graphql's parse, refusing a document longer than the limit before reading it; a text parsed lately is not parsed again. */
export function parseWithinLimits(source: Parameters<typeof parse>[0], options?: Parameters<typeof parse>[1]): DocumentNode {
  const length = typeof source === 'string' ? source.length : source.body.length;
  if (length > LIMITS.maxDocumentLength) {
    throw new GraphQLError(`The document has ${length} characters; at most ${LIMITS.maxDocumentLength} are allowed.`, {
      extensions: { code: 'QUERY_TOO_LARGE', limit: LIMITS.maxDocumentLength, actual: length },
    });
  }
  if (typeof source !== 'string' || options !== undefined) return parse(source, options);
  let document = parsed.get(source);
  if (document) {
    parsed.delete(source); // most recently used: last in the map's order
  } else {
    document = parse(source); // a document that does not parse throws, and is not kept
    if (parsed.size >= MAX_CACHED_DOCUMENTS) parsed.delete(parsed.keys().next().value!);
  }
  parsed.set(source, document);
  return document;
}

/** What graphql's own validation rules said of a document (they depend on the schema and the document only). */
const validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();

/**
 * The limit rules' verdict on a document, by what the cost depends on besides it (the operation's name and the
 * variables): a client sending the same document with the same variables is not walked again. Kept for variables
 * whose JSON is short (the key is that JSON), at most MAX_VERDICTS per document.
 */
const verdicts = new WeakMap<DocumentNode, Map<string, readonly GraphQLError[]>>();
const MAX_VERDICTS = 64;
const MAX_VERDICT_KEY = 1024;
/** The verdict key of a request's rules (set by limitRules, read by validateWithinLimits). */
const verdictKeys = new WeakMap<readonly ValidationRule[], string>();

/** The depth and cost rules for one request (the cost depends on its variables: a `limit` may be one). */
export function limitRules(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
  operationName: string | null | undefined,
): ValidationRule[] {
  const named = document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === operationName);
  // Without a matching name every operation is counted (more than runs: the execution refuses the request anyway).
  const rules = [depthRule(LIMITS.maxDepth), costRule(schema, LIMITS, variables ?? undefined, named ? operationName! : undefined)];
  const key = `${named ? operationName : ''}\u0000${variables ? JSON.stringify(variables) : ''}`;
  if (key.length <= MAX_VERDICT_KEY) verdictKeys.set(rules, key);
  return rules;
}

/**
 * graphql's validation (once per document: the schema is the process's), then the limit rules (once per document and
 * variables: the cost depends on them), only on documents graphql accepted: they walk fragments, which must exist and
 * be free of cycles first. The cost rule stops counting (throws) past a fixed number of nodes, as fragments spread in
 * fragments could otherwise multiply the work; that is refused as too costly too.
 */
export function validateWithinLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  rules: readonly ValidationRule[] = [],
): readonly GraphQLError[] {
  let errors = validated.get(document);
  if (!errors) validated.set(document, (errors = validate(schema, document)));
  if (errors.length > 0) return errors;
  const key = verdictKeys.get(rules);
  let known = verdicts.get(document);
  const verdict = key === undefined ? undefined : known?.get(key);
  if (verdict) return verdict;
  const found = limitErrors(schema, document, rules);
  if (key !== undefined) {
    if (!known) verdicts.set(document, (known = new Map<string, readonly GraphQLError[]>()));
    if (known.size >= MAX_VERDICTS) known.delete(known.keys().next().value!);
    known.set(key, found);
  }
  return found;
}

function limitErrors(schema: GraphQLSchema, document: DocumentNode, rules: readonly ValidationRule[]): readonly GraphQLError[] {
  try {
    return validate(schema, document, rules);
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    return [
      new GraphQLError(`The operation is too large to cost: ${error.message}`, {
        extensions: { code: 'QUERY_TOO_COSTLY', limit: LIMITS.maxCost },
      }),
    ];
  }
}
