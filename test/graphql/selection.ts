import { expect } from 'chai';
import { getNamedType, isObjectType, isUnionType, type GraphQLObjectType, type GraphQLSchema } from 'graphql';

/**
 * Every member of a type, nested: the selection that answers what REST answers for its schema. Members of a
 * union's types are aliased `Type__member` (their nullability may differ, which GraphQL refuses under one name);
 * `unaliased` takes the prefixes off again.
 */
export function selectAll(schema: GraphQLSchema, typeName: string, alias = ''): string {
  const type = schema.getType(typeName);
  if (isUnionType(type))
    return `{ ${type
      .getTypes()
      .map((member) => `... on ${member.name} ${selectAll(schema, member.name, `${member.name}__`)}`)
      .join(' ')} }`;
  const fields = Object.values((type as GraphQLObjectType).getFields()).map((field) => {
    const named = getNamedType(field.type);
    const key = alias ? `${alias}${field.name}: ${field.name}` : field.name;
    return isObjectType(named) || isUnionType(named) ? `${key} ${selectAll(schema, named.name)}` : key;
  });
  return `{ ${fields.join(' ')} }`;
}

export function unaliased(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unaliased);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key.replace(/^\w+__/, ''), unaliased(member)]));
}

/**
 * The GraphQL answer is REST's answer: the same members with the same values, except that a member REST leaves
 * out (optional in the schema) is null in GraphQL.
 */
export function expectSameAnswer(actual: unknown, expected: unknown, where = ''): void {
  if (Array.isArray(expected)) {
    expect(actual, where).to.be.an('array').with.length(expected.length);
    expected.forEach((item, i) => expectSameAnswer((actual as unknown[])[i], item, `${where}/${i}`));
  } else if (expected !== null && typeof expected === 'object') {
    expect(actual, where).to.be.an('object');
    const got = actual as Record<string, unknown>;
    for (const key of Object.keys(got)) if (!(key in expected)) expect(got[key], `${where}/${key} (absent in REST)`).to.equal(null);
    for (const [key, value] of Object.entries(expected)) expectSameAnswer(got[key], value, `${where}/${key}`);
  } else {
    expect(actual, where).to.equal(expected);
  }
}
