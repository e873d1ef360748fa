import type { CompiledQuery, Compilable, Kysely, QueryResult, Transaction } from 'kysely';

let generation = 0;

/**
 * Makes every CompiledOnce build its query again at its next use. For mutation testing only (a root hook in
 * test/mutation/): StrykerJS switches mutants on and off inside one long-lived test process, and a query compiled
 * while no mutant was on would otherwise keep running without the mutant that a later test switched on.
 */
export function compileAgain(): void {
  generation++;
}

/**
 * A query of a fixed shape compiled once, then run with each call's values: Kysely builds and compiles a query on every
 * call (its immutable builders and AST visitors, on every hot path), though the SQL of a hot query is the same every
 * time and only its parameters change. The query is built once with placeholders — a string per name that no real value
 * equals — and each call puts its values where those placeholders stand in the compiled parameters; the SQL text stays
 * the same, which also keeps it one prepared statement per connection.
 *
 * Only for queries whose shape does not depend on the values (no `in` list of varying length, no clause added or left
 * out): `build` must use each value as a parameter, nothing more. A test holds each such query's answers to the ones
 * the builder gives directly.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a query compiles the same against any schema's database or transaction
type AnyDatabase = Kysely<any> | Transaction<any>;

export class CompiledOnce<P extends Record<string, unknown>, R> {
  private compiled: CompiledQuery<R> | undefined;
  private compiledIn = 0;
  /** For each compiled parameter, the value's name it stands for, or undefined for a constant of the query. */
  private slots: (keyof P | undefined)[] = [];

  constructor(
    private readonly names: readonly (keyof P & string)[],
    private readonly build: (db: AnyDatabase, values: P) => Compilable<R>,
  ) {}

  async execute(db: AnyDatabase, values: P): Promise<QueryResult<R>> {
    return db.executeQuery<R>(this.with(db, values));
  }

  /** The compiled query with these values in place (what execute runs). */
  with(db: AnyDatabase, values: P): CompiledQuery<R> {
    const compiled = this.compile(db);
    const parameters = compiled.parameters.map((constant, i) => {
      const name = this.slots[i];
      return name === undefined ? constant : values[name];
    });
    return { ...compiled, parameters };
  }

  private compile(db: AnyDatabase): CompiledQuery<R> {
    if (this.compiled && this.compiledIn === generation) return this.compiled;
    const placeholders = Object.fromEntries(this.names.map((name) => [name, `\u0000placeholder:${name}\u0000`])) as unknown as P;
    const compiled = this.build(db, placeholders).compile();
    const byPlaceholder = new Map(this.names.map((name) => [`\u0000placeholder:${name}\u0000`, name]));
    this.slots = compiled.parameters.map((value) => (typeof value === 'string' ? byPlaceholder.get(value) : undefined));
    const used = new Set(this.slots.filter((name) => name !== undefined));
    const unused = this.names.filter((name) => !used.has(name));
    if (unused.length > 0) throw new Error(`a compiled query does not use ${unused.join(', ')} as parameters`);
    this.compiled = compiled;
    this.compiledIn = generation;
    return compiled;
  }
}
