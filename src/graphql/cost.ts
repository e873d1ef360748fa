import { getDirectiveValues, GraphQLError, type GraphQLField, type GraphQLSchema, type ValidationRule } from 'graphql';
import { createComplexityRule, type ComplexityEstimator } from 'graphql-query-complexity';

export interface CostModel {
  /** The most an operation may cost. */
  maxCost: number;
  /** A field of Query or Mutation: one use case, usually a database round trip. */
  rootFieldCost: number;
  /** The largest page a `limit` can ask for; a page never counts more items than that. */
  maxPageSize: number;
}

/** How many items a list field counts as: a page its `limit`, an embedded list its assumed size, anything else 1. */
function listSize(schema: GraphQLSchema, field: GraphQLField<unknown, unknown>, args: Record<string, unknown>, model: CostModel): number {
  const directive = schema.getDirective('listSize');
  const declared = directive && field.astNode ? getDirectiveValues(directive, field.astNode) : undefined;
  if (!declared) return 1;
  if (typeof declared.slicingArgument === 'string') {
    const requested = args[declared.slicingArgument];
    // A limit the contract refuses (over the maximum) is refused at execution, with its own validation error.
    return typeof requested === 'number' && requested >= 0 ? Math.min(requested, model.maxPageSize) : model.maxPageSize;
  }
  return typeof declared.assumedSize === 'number' ? declared.assumedSize : 1;
}

/**
 * The cost limit as a validation rule (graphql-query-complexity): every field costs 1, a root field
 * `rootFieldCost`, and a list multiplies the cost of its selection by its size (`@listSize` in schema.graphql).
 */
export function costRule(schema: GraphQLSchema, model: CostModel, variables: Record<string, unknown> | undefined, operationName: string | undefined): ValidationRule {
  const roots = new Set([schema.getQueryType(), schema.getMutationType()]);
  const estimator: ComplexityEstimator = ({ type, field, args, childComplexity }) =>
    (roots.has(type as never) ? model.rootFieldCost : 1) + listSize(schema, field, args, model) * childComplexity;
  return createComplexityRule({
    maximumComplexity: model.maxCost,
    variables,
    operationName,
    estimators: [estimator],
    createError: (max, actual) =>
      new GraphQLError(`The operation costs ${actual}; at most ${max} is allowed. Ask for smaller pages (limit) or fewer fields.`, {
        extensions: { code: 'QUERY_TOO_COSTLY', limit: max, actual },
      }),
  });
}
