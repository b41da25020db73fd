// Locates data files inside installed npm packages. Only the package's package.json is resolved, never
// its code: the data packages' JavaScript drags in old libraries we must not load.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

export function packageFile(packageName: string, ...relative: string[]): string {
  let manifest: string;
  try {
    manifest = require.resolve(`${packageName}/package.json`);
  } catch {
    throw new Error(`the data package ${packageName} is not installed (it is an optional dependency: run npm install)`);
  }
  return path.join(path.dirname(manifest), ...relative);
}
