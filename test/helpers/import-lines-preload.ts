// Loaded with `node --import` before the admin CLI in tests: every import source reads JSON lines
// (import-lines.ts), as in the test process.
import { useJsonLines } from './import-lines.ts';

useJsonLines();
