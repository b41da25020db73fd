// `npm run migration:create -- <Name>`: writes the migration that brings a database migrated to the
// current migrations up to the entities (src/core/schema/), for review, and lists it in
// migrations/index.ts. Works on a scratch embedded database, so no server or data is touched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate, openDatabase } from '../src/core/db/orm.ts';

const name = process.argv[2];
if (!name || !/^[A-Z][A-Za-z0-9]*$/.test(name)) {
  console.error('usage: npm run migration:create -- <Name> (PascalCase, e.g. ListNotes)');
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mts-migration-'));
const db = await openDatabase({ databaseUrl: undefined, dataDir });
try {
  await migrate(db.orm);
  const result = await db.orm.migrator.create(path.join(root, 'migrations'), false, false, name);
  if (!result.fileName) {
    console.error('the entities and the migrations agree: nothing to write');
    process.exitCode = 1;
  } else {
    const className = path.basename(result.fileName).replace(/\.ts$/, '');
    const index = path.join(root, 'migrations', 'index.ts');
    let text = fs.readFileSync(index, 'utf8');
    text = text.replace(/\n\nexport const migrationsList = \[/, `\nimport { ${className} } from './${className}.ts';\n\nexport const migrationsList = [`);
    text = text.replace(/\n\];\s*$/, `\n  { name: '${className}', class: ${className} },\n];\n`);
    fs.writeFileSync(index, text);
    console.log(`wrote migrations/${className}.ts; review it before you commit`);
  }
} finally {
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
