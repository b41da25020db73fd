// A procedure's input type is what a caller writes, so a loose spot in it (`unknown` or `any`) lets a
// wrong call compile: `limit: 'five'` where `limit` is unknown. The build reads the generated router
// declaration and fails naming every such spot, so a schema that types its input loosely (a z.coerce
// field, z.unknown(), a catch-all) is caught before the package ships. Outputs may be loose (free-form
// records the service returns); only inputs are checked.
import ts from 'typescript';

/** `procedures.path.input.field` of every `unknown` or `any` inside an `input` of the declaration text. */
export function looseInputs(declarations: string): string[] {
  const file = ts.createSourceFile('app-router.d.ts', declarations, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const name = (n: ts.PropertyName) => (ts.isIdentifier(n) || ts.isStringLiteral(n) ? n.text : n.getText(file));
  const loose = (node: ts.Node, where: string[]): void => {
    if (node.kind === ts.SyntaxKind.UnknownKeyword || node.kind === ts.SyntaxKind.AnyKeyword) {
      found.push(where.join('.'));
      return;
    }
    if (ts.isPropertySignature(node)) return ts.forEachChild(node, (c) => loose(c, [...where, name(node.name)]));
    if (ts.isIndexSignatureDeclaration(node)) return ts.forEachChild(node, (c) => loose(c, [...where, '[key]']));
    ts.forEachChild(node, (c) => loose(c, where));
  };
  const walk = (node: ts.Node, where: string[]): void => {
    if (ts.isPropertySignature(node) && node.type) {
      const at = [...where, name(node.name)];
      // A procedure: TRPCQueryProcedure<{ input: ...; output: ...; meta: object }>.
      if (ts.isTypeReferenceNode(node.type) && /^TRPC\w+Procedure$/.test(node.type.typeName.getText(file))) {
        for (const arg of node.type.typeArguments ?? []) {
          if (!ts.isTypeLiteralNode(arg)) continue;
          for (const member of arg.members) {
            if (ts.isPropertySignature(member) && member.type && name(member.name) === 'input') loose(member.type, [...at, 'input']);
          }
        }
        return;
      }
      return walk(node.type, at);
    }
    ts.forEachChild(node, (c) => walk(c, where));
  };
  // The procedures are the second type argument of AppRouter = TRPCBuiltRouter<AppRootTypes, {...}>.
  for (const statement of file.statements) {
    if (ts.isTypeAliasDeclaration(statement) && statement.name.text === 'AppRouter') walk(statement.type, []);
  }
  return found;
}

/** Throws naming every loose input spot of the router declaration text. */
export function checkExactInputs(declarations: string): void {
  const found = looseInputs(declarations);
  if (found.length) throw new Error(`router types: ${found.length} loose input types (unknown or any); type these inputs exactly:\n  ${found.join('\n  ')}`);
}
