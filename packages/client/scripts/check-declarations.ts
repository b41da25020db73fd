// The built declarations must type-check as a consumer compiles them (strict, declaration files checked
// too) with nothing but the package's dependencies: any reference to the service's source fails the build.
import path from 'node:path';
import ts from 'typescript';

export function checkDeclarations(entry: string): void {
  const dist = path.dirname(entry);
  const program = ts.createProgram([entry], {
    target: ts.ScriptTarget.ES2024,
    // As a browser app compiles them: @trpc/client's declarations name the DOM's fetch types (RequestInfo)
    // and @trpc/server's the `using` declarations' Disposable. (A Node app has Disposable from Node's types.)
    lib: ['lib.es2024.d.ts', 'lib.dom.d.ts', 'lib.esnext.disposable.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
    strict: true,
    // Declaration files are checked (the package's and its dependencies'); the language's own library
    // files are left alone, as they take most of the time and are not ours to fix.
    skipLibCheck: false,
    skipDefaultLibCheck: true,
    noEmit: true,
  });
  const errors = ts.getPreEmitDiagnostics(program);
  if (errors.length) {
    throw new Error(ts.formatDiagnostics(errors, { getCanonicalFileName: (p) => p, getCurrentDirectory: () => dist, getNewLine: () => '\n' }));
  }
  const strays = program
    .getSourceFiles()
    .map((f) => f.fileName)
    .filter((f) => !f.startsWith(`${dist}/`) && !f.includes('/node_modules/'));
  if (strays.length) throw new Error(`the declarations reach outside the package: ${strays.join(', ')}`);
}
