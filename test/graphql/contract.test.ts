import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import {
  getDirectiveValues,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLArgument,
  type GraphQLType,
  type GraphQLObjectType,
  type GraphQLOutputType,
} from 'graphql';
import { operationScopes } from '../../generated/operation-scopes.js';
import { Contract } from '../../src/contract/operations.js';
import { resolved } from '../../src/contract/refs.js';
import { loadDocument } from '../../src/document.js';
import { LIMITS } from '../../src/graphql/limits.js';
import { resolvers } from '../../src/graphql/resolvers.js';
import { createGraphQLSchema } from '../../src/graphql/schema.js';

type Json = Record<string, any>;

const document = loadDocument() as Json;
const components = document.components.schemas as Record<string, Json>;
const contract = new Contract(document as never);
const schema = createGraphQLSchema();
const roots = [schema.getQueryType()!, schema.getMutationType()!];

const refName = (node: Json) => (typeof node.$ref === 'string' ? node.$ref.split('/').pop()! : undefined);
const deref = (node: Json): Json => resolved(document, node);

/**
 * The one mapping between the contracts: a GraphQL object, union or enum type has the name of its component schema;
 * an input type too, with `Input` appended where an object type holds the name.
 */
const componentOf = (graphqlName: string) =>
  graphqlName.endsWith('Input') && components[graphqlName.slice(0, -5)] ? graphqlName.slice(0, -5) : graphqlName;

/**
 * A member's kind written the same way for both contracts: `Float!`, `[Order!]!`, `enum(buy|sell)`. A member REST
 * may leave out or send as null is nullable in GraphQL; string ids may be ID.
 */
function openApiKind(node: Json, required: boolean): string {
  const alternatives: Json[] = node.oneOf ?? [];
  const nullable =
    (Array.isArray(node.type) && node.type.includes('null')) || alternatives.some((a) => a.type === 'null') || node.enum?.includes(null);
  const bang = required && !nullable ? '!' : '';
  const inner =
    alternatives.length > 0 && alternatives.every((a) => a.type === 'null' || a.$ref) ? alternatives.filter((a) => a.$ref) : [node];
  const single = inner.length === 1 ? inner[0]! : node;
  const name = refName(single);
  const target = deref(single);
  if (target.oneOf && name) return `${name}${bang}`;
  const type = Array.isArray(target.type) ? target.type.find((t: string) => t !== 'null') : target.type;
  if (target.enum) return `enum(${target.enum.filter((v: unknown) => v !== null).join('|')})${bang}`;
  if (type === 'object') return `${name}${bang}`;
  if (type === 'array') return `[${openApiKind(target.items, true)}]${bang}`;
  return `${{ string: 'String', integer: 'Int', number: 'Float', boolean: 'Boolean' }[type as string]}${bang}`;
}

function graphqlKind(type: GraphQLType): string {
  if (isNonNullType(type)) return `${graphqlKind(type.ofType)}!`;
  if (isListType(type)) return `[${graphqlKind(type.ofType)}]`;
  if (isEnumType(type))
    return `enum(${type
      .getValues()
      .map((v) => v.value)
      .join('|')})`;
  if (type.name === 'ID') return 'String';
  return isObjectType(type) || isUnionType(type) || isInputObjectType(type) ? componentOf(type.name) : type.name;
}

function expectSameMembers(
  where: string,
  fields: (GraphQLField<unknown, unknown> | GraphQLInputField | GraphQLArgument)[],
  properties: Record<string, Json>,
  required: string[],
) {
  expect(fields.map((f) => f.name).sort(), `${where}: members`).to.deep.equal(Object.keys(properties).sort());
  for (const field of fields) {
    const member = properties[field.name]!;
    expect(graphqlKind(field.type), `${where}.${field.name}`).to.equal(openApiKind(member, required.includes(field.name)));
    if (getNamedType(field.type).name === 'ID') expect(field.name, `${where}.${field.name}: only ids are ID`).to.match(/^(id|.+_id)$/);
  }
}

describe('schema.graphql holds to openapi.yaml', () => {
  const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__') && !roots.includes(t as never));

  it('every object type has the members, nullability, list-ness and kinds of its component schema', () => {
    const objects = types.filter(isObjectType);
    expect(objects.length).to.be.greaterThan(25);
    for (const type of objects) {
      const component = components[type.name];
      expect(component, `components.schemas.${type.name}`).to.be.an('object');
      expectSameMembers(type.name, Object.values(type.getFields()), component!.properties, component!.required ?? []);
    }
  });

  it('every input type has the members of its request schema; a required member is non-null', () => {
    for (const type of types.filter(isInputObjectType)) {
      const component = components[componentOf(type.name)];
      expect(component, `components.schemas.${componentOf(type.name)} for ${type.name}`).to.be.an('object');
      expect(component!.additionalProperties, `${type.name} is closed like its schema`).to.equal(false);
      expectSameMembers(type.name, Object.values(type.getFields()), component!.properties, component!.required ?? []);
    }
  });

  it('unions and named enums are their component schemas', () => {
    for (const type of types.filter(isUnionType)) {
      expect(
        type.getTypes().map((t) => t.name),
        type.name,
      ).to.deep.equal(components[type.name]!.oneOf.map(refName));
    }
    for (const type of types.filter((t) => isEnumType(t) && components[t.name])) {
      expect(isEnumType(type) && type.getValues().map((v) => v.value), type.name).to.deep.equal(components[type.name]!.enum);
    }
  });

  it('every root field is one bearer operation: its parameters as arguments, its body as `input`, its success schema as type', () => {
    const seen: string[] = [];
    for (const root of roots) {
      for (const field of Object.values(root.getFields())) {
        const where = `${root.name}.${field.name}`;
        const operationId = getDirectiveValues(schema.getDirective('operation')!, field.astNode!)?.id as string;
        expect(operationScopes, `${where} @operation(id: "${operationId}")`).to.have.property(operationId);
        seen.push(operationId);
        const operation = contract.operation(operationId);
        expect(root.name, `${where}: reads are queries`).to.equal(
          operation.method === 'GET' || operationId === 'evaluateGoalFeasibility' ? 'Query' : 'Mutation',
        );
        expect(isNonNullType(field.type), `${where} is nullable: one failing field keeps the others`).to.equal(false);
        expect(getNamedType(field.type).name, `${where} type`).to.equal(refName(operation.success!.schema));

        const parameters = Object.fromEntries(operation.parameters.map((p) => [p.name, p.schema as Json]));
        const args = field.args.filter((a) => a.name !== 'input');
        expectSameMembers(
          where,
          args,
          parameters,
          operation.parameters.filter((p) => p.required).map((p) => p.name),
        );
        for (const arg of args)
          expect(arg.defaultValue, `${where}(${arg.name}) default`).to.equal(
            deref(parameters[arg.name]!).default ?? parameters[arg.name]!.default,
          );
        const input = field.args.find((a) => a.name === 'input');
        // A body with no members (approveOrder accepts `{}`) has nothing GraphQL could carry: no input.
        const members = operation.body ? Object.keys(deref(operation.body.schema).properties ?? {}) : [];
        expect(Boolean(input), `${where}: input iff a body with members`).to.equal(members.length > 0);
        if (input && operation.body) {
          expect(componentOf(getNamedType(input.type).name), `${where}(input)`).to.equal(refName(operation.body.schema));
          expect(isNonNullType(input.type), `${where}(input) required`).to.equal(operation.body.required);
        }
      }
    }
    expect(new Set(seen).size, 'each operation once').to.equal(seen.length);
  });

  it('every root field has its resolver', () => {
    expect(Object.keys(resolvers.Query!).sort()).to.deep.equal(Object.keys(schema.getQueryType()!.getFields()).sort());
    expect(Object.keys(resolvers.Mutation!).sort()).to.deep.equal(Object.keys(schema.getMutationType()!.getFields()).sort());
  });

  it('no list is unbounded: pages slice on `limit` (1 to 100 as in REST), every embedded list of objects has an assumed size', () => {
    const limit = deref(document.components.parameters.Limit.schema);
    expect([limit.minimum, limit.maximum, limit.default]).to.deep.equal([1, LIMITS.maxPageSize, 20]);
    const listSize = (field: GraphQLField<unknown, unknown>) => getDirectiveValues(schema.getDirective('listSize')!, field.astNode!);
    const isPage = (type: GraphQLOutputType) =>
      isObjectType(getNamedType(type)) && 'next_cursor' in (getNamedType(type) as GraphQLObjectType).getFields();
    for (const root of roots) {
      for (const field of Object.values(root.getFields()).filter((f) => isPage(f.type))) {
        expect(listSize(field)?.slicingArgument, `${root.name}.${field.name} @listSize(slicingArgument)`).to.equal('limit');
        expect(
          field.args.map((a) => a.name),
          field.name,
        ).to.include.members(['limit', 'cursor']);
      }
    }
    let embedded = 0;
    for (const type of types.filter(isObjectType)) {
      for (const field of Object.values(type.getFields())) {
        const unwrapped = isNonNullType(field.type) ? field.type.ofType : field.type;
        const named = getNamedType(field.type);
        if (!isListType(unwrapped) || !(isObjectType(named) || isUnionType(named))) continue;
        if (isPage(type) && field.name === 'data') continue; // sized by the page's limit
        expect(listSize(field)?.assumedSize, `${type.name}.${field.name} @listSize(assumedSize)`).to.be.a('number').above(0);
        embedded += 1;
      }
    }
    expect(embedded).to.be.greaterThan(5);
  });

  it('schema.graphql and the GraphQL guide state the limits the server enforces', () => {
    const description = schema.description ?? '';
    const guide = readFileSync('docs/graphql.md', 'utf8');
    const stated = [
      `at most ${LIMITS.maxDocumentLength} characters`,
      `at most ${LIMITS.maxDepth} levels`,
      `at most ${LIMITS.maxCost}`,
      `costs ${LIMITS.rootFieldCost}`,
      `at most ${LIMITS.maxPageSize}`,
      `${LIMITS.feasibilityMonthCost} per month of its horizon with a \`monthly_contribution\``,
      `${LIMITS.feasibilityMonthCostWithoutContribution} per month without`,
    ];
    for (const text of stated) {
      expect(description, 'schema.graphql').to.include(text);
      expect(guide, 'docs/graphql.md').to.include(text);
    }
  });
});
