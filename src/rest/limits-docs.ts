// The README's rate-limit table (between its `limits` markers), made from the limits table and the
// procedures that name each bucket in their metadata. `npm run docs:limits` rewrites it; a test fails
// when it is out of date.
import fs from 'node:fs';
import path from 'node:path';
import { describeLimit } from '../core/limits/docs.ts';
import { LIMITS, type Limit } from '../core/limits/table.ts';
import { PROCEDURES } from '../rpc/procedures.ts';

/** What a bucket counts: the procedures that name it (REST route and /trpc name), or its own words. */
export function limitEndpoints(limit: Limit): string[] {
  if (limit.checkedBy !== 'procedure') return [limit.endpoint ?? limit.id];
  return PROCEDURES.filter((p) => p.meta.limits?.some((id) => id === limit.id)).map((p) =>
    p.rest ? `${p.rest.method} ${p.rest.path} (\`${p.trpcName}\`)` : `\`${p.trpcName}\``,
  );
}

export function limitsMarkdown(): string {
  const rows = LIMITS.map((l) => `| ${l.surface} | ${limitEndpoints(l).join('<br>')} | ${describeLimit(l)} | \`${l.id}\` |`);
  return ['| API | Requests | Limit | Bucket |', '|---|---|---|---|', ...rows].join('\n');
}

const START = '<!-- limits:start -->';
const END = '<!-- limits:end -->';

export function readmeWithLimits(readme: string): string {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error('README has no limits markers');
  return `${readme.slice(0, a + START.length)}\n${limitsMarkdown()}\n${readme.slice(b)}`;
}

if (import.meta.main) {
  const file = path.resolve(import.meta.dirname, '../../README.md');
  fs.writeFileSync(file, readmeWithLimits(fs.readFileSync(file, 'utf8')));
}
