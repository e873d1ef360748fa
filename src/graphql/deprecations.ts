import {
  Kind,
  visit,
  type ConstDirectiveNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type InputValueDefinitionNode,
  type ObjectTypeDefinitionNode,
} from 'graphql';
import { deprecationOf, deprecationText, type Deprecation } from '../contract/deprecation.js';
import type { Contract } from '../contract/operations.js';
import { resolved, type Schema } from '../contract/refs.js';

const deprecated = (deprecation: Deprecation, noticeUrl: string): ConstDirectiveNode => ({
  kind: Kind.DIRECTIVE,
  name: { kind: Kind.NAME, value: 'deprecated' },
  arguments: [
    {
      kind: Kind.ARGUMENT,
      name: { kind: Kind.NAME, value: 'reason' },
      value: { kind: Kind.STRING, value: deprecationText(deprecation, noticeUrl) },
    },
  ],
});

function withDirective<T extends FieldDefinitionNode | InputValueDefinitionNode>(
  node: T,
  deprecation: Deprecation | undefined,
  url: string,
): T {
  if (!deprecation || node.directives?.some((d) => d.name.value === 'deprecated')) return node;
  // GraphQL refuses to deprecate what a caller must give (a non-null argument or input field without a default).
  if (node.kind === Kind.INPUT_VALUE_DEFINITION && node.type.kind === Kind.NON_NULL_TYPE && !node.defaultValue) return node;
  return { ...node, directives: [...(node.directives ?? []), deprecated(deprecation, url)] };
}

const operationIdOf = (field: FieldDefinitionNode) => {
  const id = field.directives?.find((d) => d.name.value === 'operation')?.arguments?.find((a) => a.name.value === 'id')?.value;
  return id?.kind === Kind.STRING ? id.value : undefined;
};

/**
 * schema.graphql with the contract's deprecations marked `@deprecated(reason:)`: a root field whose operation is
 * deprecated, an argument whose parameter is, and a field of a type named after a component schema (an input type
 * with `Input` appended) whose property is. Done once, when the schema is built.
 */
export function markDeprecations(typeDefs: DocumentNode, contract: Contract, noticeUrl: string): DocumentNode {
  const document = contract.document as { components?: { schemas?: Record<string, Schema> } };
  const schemas = document.components?.schemas ?? {};
  const propertyDeprecation = (typeName: string, field: string): Deprecation | undefined => {
    const component = schemas[typeName] ?? (typeName.endsWith('Input') ? schemas[typeName.slice(0, -'Input'.length)] : undefined);
    const property = component?.properties?.[field];
    return property ? deprecationOf(resolved(document, property), `${typeName}.${field}`) : undefined;
  };
  const onType = (node: ObjectTypeDefinitionNode) => {
    const root = node.name.value === 'Query' || node.name.value === 'Mutation';
    return {
      ...node,
      fields: node.fields?.map((field) => {
        const operation = root ? contract.operations.get(operationIdOf(field) ?? '') : undefined;
        const marked = withDirective(
          field,
          root ? operation?.deprecation : propertyDeprecation(node.name.value, field.name.value),
          noticeUrl,
        );
        if (!operation) return marked;
        const parameters = new Map(operation.parameters.map((p) => [p.name, p.deprecation]));
        return { ...marked, arguments: marked.arguments?.map((arg) => withDirective(arg, parameters.get(arg.name.value), noticeUrl)) };
      }),
    };
  };
  return visit(typeDefs, {
    ObjectTypeDefinition: onType,
    InputObjectTypeDefinition: (node) => ({
      ...node,
      fields: node.fields?.map((field) => withDirective(field, propertyDeprecation(node.name.value, field.name.value), noticeUrl)),
    }),
  });
}
