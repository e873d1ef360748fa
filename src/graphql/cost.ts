import { getDirectiveValues, GraphQLError, type GraphQLField, type GraphQLSchema, type ValidationRule } from 'graphql';
import { createComplexityRule, type ComplexityEstimator } from 'graphql-query-complexity';
import { MAX_HORIZON_YEARS } from '../feasibility/index.js';

export interface CostModel {
  /** The most an operation may cost. */
  maxCost: number;
  /** A field of Query or Mutation: one use case, usually a database round trip. */
  rootFieldCost: number;
  /** The largest page a `limit` can ask for; a page never counts more items than that. */
  maxPageSize: number;
  /** Goal feasibility, on top of its root field's cost, per month of its horizon: with a monthly contribution, and without. */
  feasibilityMonthCost: number;
  feasibilityMonthCostWithoutContribution: number;
}

/** The operation whose computation is weighed by what it costs, not as one use case among others. */
const FEASIBILITY_OPERATION = 'evaluateGoalFeasibility';

/**
 * What evaluating a goal adds to its root field: its computation steps month by month over the horizon, and a
 * monthly contribution adds searches on the same steps. A horizon the contract refuses (or a variable that is not
 * a number) counts as the largest it accepts; the refusal itself is left to the contract's validation.
 */
function feasibilityCost(args: Record<string, unknown>, model: CostModel): number {
  const input = (args.input ?? {}) as { horizon_years?: unknown; monthly_contribution?: unknown };
  const years =
    typeof input.horizon_years === 'number' && input.horizon_years >= 0
      ? Math.min(input.horizon_years, MAX_HORIZON_YEARS)
      : MAX_HORIZON_YEARS;
  const contribution = input.monthly_contribution;
  const contributes = typeof contribution === 'number' ? contribution > 0 : contribution !== undefined && contribution !== null;
  return Math.ceil(Math.ceil(years * 12) * (contributes ? model.feasibilityMonthCost : model.feasibilityMonthCostWithoutContribution));
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

const feasibilityFields = new WeakMap<GraphQLSchema, Set<GraphQLField<unknown, unknown>>>();

/** The root fields that evaluate a goal (`@operation(id:)` in schema.graphql), found once per schema. */
function feasibilityFieldsOf(schema: GraphQLSchema): Set<GraphQLField<unknown, unknown>> {
  let fields = feasibilityFields.get(schema);
  if (!fields) {
    const directive = schema.getDirective('operation');
    const roots = [schema.getQueryType(), schema.getMutationType()].flatMap((type) => (type ? Object.values(type.getFields()) : []));
    fields = new Set(
      roots.filter((field) => directive && field.astNode && getDirectiveValues(directive, field.astNode)?.id === FEASIBILITY_OPERATION),
    );
    feasibilityFields.set(schema, fields);
  }
  return fields;
}

/**
 * The cost limit as a validation rule (graphql-query-complexity): every field costs 1, a root field
 * `rootFieldCost` (goal feasibility more: see feasibilityCost), and a list multiplies the cost of its selection by
 * its size (`@listSize` in schema.graphql).
 */
export function costRule(
  schema: GraphQLSchema,
  model: CostModel,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): ValidationRule {
  const roots = new Set([schema.getQueryType(), schema.getMutationType()]);
  const feasibility = feasibilityFieldsOf(schema);
  const estimator: ComplexityEstimator = ({ type, field, args, childComplexity }) =>
    (roots.has(type as never) ? model.rootFieldCost : 1) +
    (feasibility.has(field) ? feasibilityCost(args, model) : 0) +
    listSize(schema, field, args, model) * childComplexity;
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
