// The client package's build refuses a router declaration with a loose input (packages/client/scripts/
// exact-inputs.ts): every `unknown` or `any` inside a procedure's `input` is named by its path, nested
// objects, arrays and index signatures included; outputs may be loose.
import { describe, expect, it } from 'vitest';
import { checkExactInputs, looseInputs } from '../../packages/client/scripts/exact-inputs.ts';

const declaration = (procedures: string) => `import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';
export type AppRootTypes = { ctx: object; meta: object; errorShape: unknown; transformer: false };
export type AppRouter = TRPCBuiltRouter<AppRootTypes, ${procedures}>;
`;

describe('looseInputs', () => {
  it('names every unknown or any inside an input, wherever it sits', () => {
    const text = declaration(`{
      history: {
        list: TRPCQueryProcedure<{ input: { cursor?: string | undefined; limit?: unknown }; output: { data: Record<string, unknown> }; meta: object }>;
      };
      sync: {
        history: TRPCMutationProcedure<{ input: { items: unknown[] }; output: unknown; meta: object }>;
        other: TRPCMutationProcedure<{ input: { resource: string; [x: string]: unknown }; output: object; meta: object }>;
        deep: TRPCMutationProcedure<{ input: { a: { b: Array<{ c: any }> } } | undefined; output: object; meta: object }>;
      };
    }`);
    expect(looseInputs(text)).toEqual(['history.list.input.limit', 'sync.history.input.items', 'sync.other.input.[key]', 'sync.deep.input.a.b.c']);
    expect(() => checkExactInputs(text)).toThrow(/4 loose input types/);
  });

  it('passes exact inputs, whatever the outputs and the root types hold', () => {
    const text = declaration(`{
      list: TRPCQueryProcedure<{ input: { limit?: number | undefined; type?: 'movie' | 'show' | undefined; unread?: boolean }; output: { data: unknown }; meta: object }>;
      none: TRPCQueryProcedure<{ input: void; output: Record<string, unknown>; meta: object }>;
    }`);
    expect(looseInputs(text)).toEqual([]);
    expect(() => checkExactInputs(text)).not.toThrow();
  });
});
