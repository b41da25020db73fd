// The admin CLI as src/cli.ts runs it, every import source reading the tests' JSON lines (import-lines.ts).
import { runCli } from '../../src/cli/run.ts';
import { jsonLinesImporters } from './import-lines.ts';

process.exitCode = await runCli(process.argv.slice(2), { importers: jsonLinesImporters });
