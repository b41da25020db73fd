// The catalog sources by the names operators use (CLI `catalog import movies anime ...`); index.ts makes
// each, and the demo (demo-state.ts) names its own from them.
export const SOURCE_NAMES = ['movies', 'anime', 'synthetic', 'movie-db-api'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

export function isSourceName(name: string): name is SourceName {
  return (SOURCE_NAMES as readonly string[]).includes(name);
}
