import { GraphQLError, Kind, type SelectionSetNode, type ValidationRule } from 'graphql';

/**
 * Fields may nest at most `max` levels below a root field. Written here rather than taken from graphql-depth-limit,
 * which walks a fragment again at every spread: nested spreads make that exponential, and a document of under a
 * kilobyte kept it busy for seconds. Each fragment's depth is computed once. Introspection fields (`__schema`,
 * `__type`) are exempt, so standard tools can introspect (their query nests 14 levels); graphql's own
 * MaxIntrospectionDepthRule (among its specified rules) bounds introspection's nested lists instead.
 * Runs only on documents graphql's rules accepted: every fragment exists and none spreads itself.
 */
export function depthRule(max: number): ValidationRule {
  return (context) => {
    const fragmentDepths = new Map<string, number>();
    const depthOf = (selectionSet: SelectionSetNode): number => {
      let deepest = 0;
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          if (selection.selectionSet && !selection.name.value.startsWith('__'))
            deepest = Math.max(deepest, 1 + depthOf(selection.selectionSet));
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, depthOf(selection.selectionSet));
        } else {
          const name = selection.name.value;
          if (!fragmentDepths.has(name)) {
            const fragment = context.getFragment(name);
            fragmentDepths.set(name, fragment ? depthOf(fragment.selectionSet) : 0);
          }
          deepest = Math.max(deepest, fragmentDepths.get(name)!);
        }
      }
      return deepest;
    };
    return {
      OperationDefinition(operation) {
        const depth = depthOf(operation.selectionSet);
        if (depth > max) {
          context.reportError(
            new GraphQLError(`The operation nests fields ${depth} levels below a root field; at most ${max} are allowed.`, {
              nodes: operation,
              extensions: { code: 'QUERY_TOO_DEEP', limit: max, actual: depth },
            }),
          );
        }
      },
    };
  };
}
