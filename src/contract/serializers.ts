import fastJson from 'fast-json-stringify';
import type { Contract } from './operations.js';

/** A success body as JSON text, or undefined when it is not what its schema says (the caller then writes JSON.stringify's). */
export type Serializer = (value: unknown) => string | undefined;

/** The serializers made so far, per document (every server of a process serving one contract shares them). */
const made = new WeakMap<object, Map<string, Serializer>>();

/**
 * An operation's success body serialised by code compiled from its response schema (fast-json-stringify): it writes
 * the members the schema declares, in its order, without walking each value to find its type as JSON.stringify does (a
 * third less time on the broker list). Members the schema does not declare are not written: the contract is the
 * answer's shape. A value the compiled code cannot write (a required member missing, a type other than declared) is
 * written by JSON.stringify as before, so a defect of a use case never turns an answered request into a 500; the
 * conformance tests hold every answer to its schema. Compiled on an operation's first answer (about 10 ms each; all of
 * them at start would delay readiness half a second for operations an instance may never serve), then kept.
 */
export function serializerOf(contract: Contract, operationId: string): Serializer | undefined {
  let serializers = made.get(contract.document);
  if (!serializers) made.set(contract.document, (serializers = new Map<string, Serializer>()));
  let serializer = serializers.get(operationId);
  if (serializer) return serializer;
  const success = contract.operations.get(operationId)?.success;
  if (!success) return undefined;
  const components = (contract.document as { components?: unknown }).components;
  const write = fastJson({ ...(success.schema as object), components } as unknown as Parameters<typeof fastJson>[0]);
  serializer = (value) => {
    try {
      return write(value);
    } catch {
      return undefined;
    }
  };
  serializers.set(operationId, serializer);
  return serializer;
}
