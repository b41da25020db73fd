// Writes the declaration of AppRouter that the package ships: every procedure of the service's router
// with its input and output types spelled out in full, so a consumer needs neither the server's source
// nor its server-only packages. The server's root types are replaced: the request context and the
// procedure metadata (database handles, scopes, OpenAPI routes) mean nothing to a client, and a client
// type-checks tRPC calls without them. The error shape and transformer flag are kept as the server has them.
import path from 'node:path';
import ts from 'typescript';

const KINDS = { query: 'TRPCQueryProcedure', mutation: 'TRPCMutationProcedure', subscription: 'TRPCSubscriptionProcedure' } as const;
type Kind = keyof typeof KINDS;

const f = ts.factory;
const TYPE_FLAGS =
  ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.MultilineObjectLiterals | ts.NodeBuilderFlags.UseSingleQuotesForStringLiteralType;

/** The root tsconfig's options: the server's sources compile only with them (e.g. `.ts` imports). */
function serverOptions(repoRoot: string): ts.CompilerOptions {
  const file = path.join(repoRoot, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(file, (p) => ts.sys.readFile(p));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return { ...ts.parseJsonConfigFileContent(config, ts.sys, repoRoot).options, noEmit: true };
}

function fail(message: string): never {
  throw new Error(`router types: ${message}`);
}

/** `source` names AppRouter (packages/client/src/app-router.ts); returns the text of dist/app-router.d.ts. */
export function routerDeclarations(source: string, repoRoot: string): string {
  const options = serverOptions(repoRoot);
  const program = ts.createProgram([source], options);
  const checker = program.getTypeChecker();
  const sourceFile = program.getSourceFile(source) ?? fail(`cannot read ${source}`);
  // Only this file: the types printed below are checked as they are computed, and checking the whole
  // server is the root typecheck's job (here it would add seconds to every pack).
  const errors = [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)];
  if (errors.length) fail(ts.formatDiagnostics(errors, { getCanonicalFileName: (p) => p, getCurrentDirectory: () => repoRoot, getNewLine: () => '\n' }));
  const moduleSymbol = checker.getSymbolAtLocation(sourceFile) ?? fail(`${source} is not a module`);
  const routerSymbol = checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'AppRouter') ?? fail('AppRouter is not exported');
  const router = checker.getDeclaredTypeOfSymbol(routerSymbol);

  const prop = (type: ts.Type, name: string, where: string): ts.Type => {
    const symbol = type.getProperty(name) ?? fail(`${where} has no ${name}`);
    return checker.getTypeOfSymbol(symbol);
  };
  const def = prop(router, '_def', 'AppRouter');
  const rootTypes = prop(prop(def, '_config', 'AppRouter._def'), '$types', 'AppRouter._def._config');

  // Named types the printed text refers to must exist for the consumer: the language's own (Date, Record)
  // or @trpc/server's exports (imported below). Anything else is a server type that would dangle.
  const trpcExports = trpcServerExports(program, checker, source, options);
  const imports = new Map<string, string>(Object.values(KINDS).map((n) => [n, n]));
  imports.set('TRPCBuiltRouter', 'TRPCBuiltRouter');
  const allowNamed = (symbol: ts.Symbol, where: string) => {
    const declarations = symbol.declarations ?? [];
    if (declarations.length && declarations.every((d) => program.isSourceFileDefaultLibrary(d.getSourceFile()))) return;
    const exported = trpcExports.get(symbol);
    if (exported) return void imports.set(symbol.name, exported);
    fail(`${where} refers to ${symbol.name}, declared in ${declarations[0]?.getSourceFile().fileName ?? 'nowhere'}; give it a plain or schema-inferred type`);
  };
  const print = (type: ts.Type, where: string): ts.TypeNode => {
    namedTypes(checker, type, (symbol) => allowNamed(symbol, where));
    return checker.typeToTypeNode(type, undefined, TYPE_FLAGS) ?? fail(`${where}: cannot print its type`);
  };

  // A router record is a tree: procedures at the leaves, nested records (sub-routers) in between.
  const record = (type: ts.Type, where: string): ts.TypeLiteralNode =>
    f.createTypeLiteralNode(
      type.getProperties().map((symbol) => {
        const at = where ? `${where}.${symbol.name}` : symbol.name;
        const value = checker.getTypeOfSymbol(symbol);
        const procedureDef = value.getProperty('_def') && value.getProperty('meta') ? prop(value, '_def', at) : undefined;
        return member(symbol.name, procedureDef ? procedure(procedureDef, at) : record(value, at));
      }),
    );
  // A subscription's output is the async iterable it yields; a `tracked()` event comes to the client as
  // @trpc/server's TrackedData, an interface the package cannot import (not exported): it is written
  // out as the object it is, `{ id, data }`, which the client's types read the same way.
  const subscriptionOutput = (type: ts.Type, where: string): ts.TypeNode => {
    const reference = type as ts.TypeReference;
    const [yielded] = type.flags & ts.TypeFlags.Object ? checker.getTypeArguments(reference) : [];
    if (!yielded || !['AsyncIterable', 'AsyncGenerator', 'AsyncIterableIterator'].includes(reference.target.symbol.name)) fail(`${where} does not return an async iterable`);
    const tracked = yielded.symbol?.name === 'TrackedData' ? prop(yielded, 'data', where) : undefined;
    const item = tracked
      ? f.createTypeLiteralNode([member('id', f.createKeywordTypeNode(ts.SyntaxKind.StringKeyword)), member('data', print(tracked, `${where} output`))])
      : print(yielded, `${where} output`);
    return f.createTypeReferenceNode('AsyncIterable', [item]);
  };
  const procedure = (procedureDef: ts.Type, where: string): ts.TypeNode => {
    const kind = checker.typeToString(prop(procedureDef, 'type', where)).replaceAll('"', '') as Kind;
    if (!(kind in KINDS)) fail(`${where} is a ${kind}`);
    const types = prop(procedureDef, '$types', where);
    const output = prop(types, 'output', where);
    return f.createTypeReferenceNode(KINDS[kind], [
      f.createTypeLiteralNode([
        member('input', print(prop(types, 'input', where), `${where} input`)),
        member('output', kind === 'subscription' ? subscriptionOutput(output, where) : print(output, `${where} output`)),
        member('meta', f.createKeywordTypeNode(ts.SyntaxKind.ObjectKeyword)),
      ]),
    ]);
  };

  const root = f.createTypeLiteralNode([
    member('ctx', f.createKeywordTypeNode(ts.SyntaxKind.ObjectKeyword)),
    member('meta', f.createKeywordTypeNode(ts.SyntaxKind.ObjectKeyword)),
    member('errorShape', print(prop(rootTypes, 'errorShape', 'AppRouter'), 'the error shape')),
    member('transformer', print(prop(rootTypes, 'transformer', 'AppRouter'), 'the transformer flag')),
  ]);
  const procedures = record(prop(def, 'record', 'AppRouter._def'), '');

  const exported = [f.createModifier(ts.SyntaxKind.ExportKeyword)];
  const statements = [
    f.createImportDeclaration(
      undefined,
      f.createImportClause(
        ts.SyntaxKind.TypeKeyword,
        undefined,
        f.createNamedImports(
          [...imports].sort().map(([local, name]) => f.createImportSpecifier(false, local === name ? undefined : f.createIdentifier(name), f.createIdentifier(local))),
        ),
      ),
      f.createStringLiteral('@trpc/server'),
    ),
    f.createTypeAliasDeclaration(exported, 'AppRootTypes', undefined, root),
    f.createTypeAliasDeclaration(exported, 'AppRouter', undefined, f.createTypeReferenceNode('TRPCBuiltRouter', [f.createTypeReferenceNode('AppRootTypes'), procedures])),
  ];
  const out = ts.createSourceFile('app-router.d.ts', '', ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  const body = statements.map((s) => printer.printNode(ts.EmitHint.Unspecified, s, out)).join('\n\n');
  return `// Generated by the package's build from the service's router; do not edit.\n${body}\n`;
}

function member(name: string, type: ts.TypeNode): ts.PropertySignature {
  const key = /^[A-Za-z_$][\w$]*$/.test(name) ? f.createIdentifier(name) : f.createStringLiteral(name);
  return f.createPropertySignature(undefined, key, undefined, type);
}

/** @trpc/server's exported types, by the symbol they export, under their exported names. */
function trpcServerExports(program: ts.Program, checker: ts.TypeChecker, from: string, options: ts.CompilerOptions): Map<ts.Symbol, string> {
  // As an ES module imports it (the package and the service are both ES modules).
  const resolved = ts.resolveModuleName('@trpc/server', from, options, ts.sys, undefined, undefined, ts.ModuleKind.ESNext).resolvedModule;
  if (!resolved) fail('cannot resolve @trpc/server');
  const file = program.getSourceFile(resolved.resolvedFileName) ?? fail('@trpc/server is not part of the program');
  const moduleSymbol = checker.getSymbolAtLocation(file) ?? fail('@trpc/server is not a module');
  const byTarget = new Map<ts.Symbol, string>();
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (!byTarget.has(target) || symbol.name === target.name) byTarget.set(target, symbol.name);
  }
  return byTarget;
}

/**
 * Calls `visit` with the symbol of every type the printer writes by name (aliases, interfaces, classes,
 * enums) inside `type`, and walks into the anonymous ones it writes out in full.
 */
function namedTypes(checker: ts.TypeChecker, type: ts.Type, visit: (symbol: ts.Symbol) => void, seen = new Set<ts.Type>()): void {
  if (seen.has(type)) return;
  seen.add(type);
  const walk = (t: ts.Type) => namedTypes(checker, t, visit, seen);
  if (type.aliasSymbol) {
    visit(type.aliasSymbol);
    return type.aliasTypeArguments?.forEach(walk);
  }
  if (type.flags & ts.TypeFlags.EnumLiteral || type.flags & ts.TypeFlags.Enum) return visit(type.symbol);
  if (type.isUnionOrIntersection()) return type.types.forEach(walk);
  if (!(type.flags & ts.TypeFlags.Object)) return;
  const object = type as ts.ObjectType;
  if (object.objectFlags & ts.ObjectFlags.Reference) {
    const reference = object as ts.TypeReference;
    if (!(reference.target.objectFlags & ts.ObjectFlags.Tuple)) visit(reference.target.symbol);
    return checker.getTypeArguments(reference).forEach(walk);
  }
  if (object.objectFlags & (ts.ObjectFlags.Class | ts.ObjectFlags.Interface)) return visit(object.symbol);
  for (const symbol of object.getProperties()) walk(checker.getTypeOfSymbol(symbol));
  for (const info of checker.getIndexInfosOfType(object)) walk(info.type);
  for (const signature of [...object.getCallSignatures(), ...object.getConstructSignatures()]) {
    signature.getParameters().forEach((p) => walk(checker.getTypeOfSymbol(p)));
    walk(signature.getReturnType());
  }
}
