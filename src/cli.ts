// The operator's admin CLI: `npm run --silent admin -- <command> [options]`. The only thing written to
// stdout is one JSON object (the result); progress and errors go to stderr. Works in both database
// modes, and in embedded mode while the server runs (through the embedded database's socket).
import { runCli } from './cli/run.ts';

process.exitCode = await runCli(process.argv.slice(2));
