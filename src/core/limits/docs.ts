// The limits table in words, for the README (between its `limits` markers) and the OpenAPI documents.
// `npm run docs:limits` rewrites the README's table; a test fails when it is out of date.
import fs from 'node:fs';
import path from 'node:path';
import { LIMITS, type Limit } from './table.ts';

const PER: Record<Limit['key'], string> = {
  ip: 'client address',
  client_ip: 'app (client id) and address',
  user: 'user',
  app_user: 'app and user (token)',
  operation_app_user: 'operation, app and user',
  token: 'access token',
  app: 'app, all users',
  account: 'account (username)',
};

export function windowText(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
}

export function describeLimit(l: Limit): string {
  return `${l.points.toLocaleString('en-US')} per ${windowText(l.seconds)} per ${PER[l.key]}`;
}

export function limitsMarkdown(): string {
  const rows = LIMITS.map((l) => `| ${l.surface} | ${l.endpoint} | ${describeLimit(l)} | \`${l.id}\` |`);
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
  const file = path.resolve(import.meta.dirname, '../../../README.md');
  fs.writeFileSync(file, readmeWithLimits(fs.readFileSync(file, 'utf8')));
}
