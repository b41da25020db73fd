// Builds dist/: the client's JavaScript and declarations, and the router's declarations generated from
// the service's source, whose procedure inputs must be exact (no `unknown` or `any`); then checks that
// the declarations stand on their own. `npm pack` runs it (prepack), so a tarball is always built from
// the router it sits beside.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { routerDeclarations } from './router-types.ts';
import { checkDeclarations } from './check-declarations.ts';
import { checkExactInputs } from './exact-inputs.ts';

const pkg = path.resolve(import.meta.dirname, '..');
const repoRoot = path.resolve(pkg, '../..');
const src = path.join(pkg, 'src');
const dist = path.join(pkg, 'dist');

// The client's own modules compile one file at a time (no type information needed): their exports carry
// explicit types, and they import each other by the `.js` names the built files have.
const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, verbatimModuleSyntax: true };
const declarationOptions: ts.CompilerOptions = { ...options, declaration: true, isolatedDeclarations: true };

fs.rmSync(dist, { recursive: true, force: true });
fs.mkdirSync(dist);
for (const name of fs.readdirSync(src)) {
  if (name === 'app-router.ts') continue; // replaced by the generated declarations below
  const file = path.join(src, name);
  const text = fs.readFileSync(file, 'utf8');
  const js = ts.transpileModule(text, { compilerOptions: options, fileName: file, reportDiagnostics: true });
  const dts = ts.transpileDeclaration(text, { compilerOptions: declarationOptions, fileName: file, reportDiagnostics: true });
  const problems = [...(js.diagnostics ?? []), ...(dts.diagnostics ?? [])];
  if (problems.length) throw new Error(ts.formatDiagnostics(problems, { getCanonicalFileName: (p) => p, getCurrentDirectory: () => pkg, getNewLine: () => '\n' }));
  const base = path.join(dist, name.replace(/\.ts$/, ''));
  fs.writeFileSync(`${base}.js`, js.outputText);
  fs.writeFileSync(`${base}.d.ts`, dts.outputText);
}
const router = routerDeclarations(path.join(src, 'app-router.ts'), repoRoot);
checkExactInputs(router);
fs.writeFileSync(path.join(dist, 'app-router.d.ts'), router);
checkDeclarations(path.join(dist, 'index.d.ts'));
console.log(`built ${path.relative(process.cwd(), dist) || '.'}: ${fs.readdirSync(dist).sort().join(', ')}`);
