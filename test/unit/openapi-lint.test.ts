// Both OpenAPI documents, generated as the app generates them, linted with the two linters client
// authors run: Redocly's `recommended` rules and Spectral's `oas` ruleset. No error is allowed (an
// example that does not match its schema is one: Spectral's oas3-valid-media-example); warnings are
// printed and allowed.
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral, type RulesetDefinition } from '@stoplight/spectral-core';
import { Json as JsonParser } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { platformDocument, publicDocument } from '../../src/rest/openapi.ts';
import { platformRouter, publicRouter } from '../../src/rpc/app-router.ts';

// A deployment's BASE_URL (the default, http://localhost:3000, draws Redocly's no-server-example.com
// warning, which is about the servers of a published document).
const BASE_URL = 'https://media-tracker.test';

type Finding = { linter: 'redocly' | 'spectral'; severity: 'error' | 'warning'; rule: string; message: string; at: string };

async function redocly(source: string, name: string): Promise<Finding[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: `${process.cwd()}/${name}.openapi.json`, config });
  return problems
    .filter((p) => p.severity === 'error' || p.severity === 'warn')
    .map((p) => ({
      linter: 'redocly',
      severity: p.severity === 'error' ? 'error' : 'warning',
      rule: p.ruleId,
      message: p.message,
      at: p.location[0]?.pointer ?? '',
    }));
}

async function spectral(source: string, name: string): Promise<Finding[]> {
  const linter = new Spectral();
  linter.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
  const results = await linter.run(new Document(source, JsonParser, `${name}.openapi.json`));
  // Severities: 0 error, 1 warning, 2 information, 3 hint.
  return results
    .filter((r) => r.severity <= 1)
    .map((r) => ({ linter: 'spectral', severity: r.severity === 0 ? 'error' : 'warning', rule: String(r.code), message: r.message, at: r.path.join('.') }));
}

const format = (findings: Finding[]) => findings.map((f) => `${f.linter} ${f.rule}: ${f.message} (at ${f.at})`).join('\n');

describe.each([
  ['platform', () => platformDocument(platformRouter, BASE_URL)],
  ['public', () => publicDocument(publicRouter, BASE_URL)],
] as const)('the %s document', (name, generate) => {
  const source = JSON.stringify(generate(), null, 2);

  it.each([
    ['Redocly recommended', redocly],
    ['Spectral oas', spectral],
  ] as const)('passes %s with no error', async (_linter, lint) => {
    const findings = await lint(source, name);
    const errors = findings.filter((f) => f.severity === 'error');
    const warnings = findings.filter((f) => f.severity === 'warning');
    if (warnings.length) console.info(`${name} document, ${warnings.length} warning(s):\n${format(warnings)}`);
    expect(errors.length, `errors:\n${format(errors)}`).toBe(0);
  });
});
