// Hot reads compiled once per shape. Kysely builds a statement's operation tree and compiles it to text
// on every call; for the title detail that is more than a tenth of a core at the rates the benchmarks
// reach (figures: docs/performance.md, 'Statements compiled once per shape'). The text depends only on the statement's shape (which joins and filters
// it has); the values travel as bound parameters. So each shape is built once, with placeholders
// standing for the values, and later calls only put their values in the placeholders' places.
import { CompiledQuery, type Compilable } from 'kysely';

/** Stands for one of a call's values while the statement of its shape is built. */
class Placeholder {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
  toJSON() {
    return { placeholder: this.index };
  }
}

type Template = { sql: string; parameters: readonly unknown[] };

/** Shapes kept per statement; past this, statements are built per call (a caller shaping without bound). */
const MAX_SHAPES = 256;

/**
 * `build(input)` as a compiled statement, its text made once per shape. `parameterize(input, value)`
 * returns the input with every value that is only ever a bound parameter replaced by `value(it)`; the
 * rest of the input (types, flags, which values are null) is the shape. A shape is checked when first
 * built against the statement built from the call's own values, and refused if they differ.
 */
export function compiledOnce<I, O>(
  build: (input: I) => Compilable<O>,
  parameterize: (input: I, value: <T>(v: T) => T) => I,
): (input: I) => CompiledQuery<O> {
  const shapes = new Map<string, Template>();
  return (input) => {
    const values: unknown[] = [];
    const template = parameterize(input, <T>(v: T): T => {
      values.push(v);
      return new Placeholder(values.length - 1) as T;
    });
    const key = JSON.stringify(template);
    let t = shapes.get(key);
    if (!t) {
      if (shapes.size >= MAX_SHAPES) return build(input).compile();
      const compiled = build(template).compile();
      t = { sql: compiled.sql, parameters: compiled.parameters };
      // The first call of a shape is also built as it is: a value that chose the text, or travelled other
      // than as a parameter, would make the two differ.
      const direct = build(input).compile();
      const filled = fill(t, values);
      if (direct.sql !== t.sql || direct.parameters.length !== filled.length || direct.parameters.some((p, i) => p !== filled[i])) {
        throw new Error(`compiledOnce: a value shaped the statement, not only its parameters (${direct.sql.slice(0, 80)}...)`);
      }
      shapes.set(key, t);
    }
    return CompiledQuery.raw(t.sql, fill(t, values)) as CompiledQuery<O>;
  };
}

const fill = (t: Template, values: unknown[]) => t.parameters.map((p) => (p instanceof Placeholder ? values[p.index] : p));
