// The `own` source: this service's export document (core/export), read as a stream of JSON tokens so a
// document of hundreds of thousands of watches never sits whole in memory. The head (format, version,
// profile, preferences) is assembled value by value; each array is read an element at a time, checked
// against the document's schema and turned into records in document order: profile and preferences,
// history, ratings, favourites, statuses (after the history, whose watches move statuses by themselves),
// watchlist, lists, collection, Continue Watching.
import Assembler from 'stream-json/assembler.js';
import { jsonParser } from 'stream-json/parser.js';
import type { z } from 'zod';
import {
  EXPORT_ARRAYS,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  exportNotificationPreferences,
  exportPreferences,
  exportProfile,
  type ExportArray,
  type ExportElement,
  type ExportTitle,
} from '../../export/schema.ts';
import { ImportFileError, type ImportRecord, type ImportTitleRef, type Importer, type SourceRow } from '../records.ts';

type Token = { name: string; value?: unknown };

const HEAD_SCHEMAS = { profile: exportProfile, preferences: exportPreferences, notification_preferences: exportNotificationPreferences } as const;
type HeadKey = keyof typeof HEAD_SCHEMAS;
const isArrayName = (k: string): k is ExportArray => Object.hasOwn(EXPORT_ARRAYS, k);
const isHeadKey = (k: string): k is HeadKey => Object.hasOwn(HEAD_SCHEMAS, k);

/**
 * A title as the bulk-sync items name one: every id, then name and year, each only within the bounds
 * those items accept (a value out of them is left out rather than failing the record).
 */
function titleRef(t: ExportTitle): ImportTitleRef {
  return {
    type: t.type,
    movie_db_id: t.movie_db_id,
    tv_db_id: t.tv_db_id,
    film_db_id: t.film_db_id !== null && t.film_db_id.length >= 1 && t.film_db_id.length <= 32 ? t.film_db_id : null,
    anime_db_id: t.anime_db_id,
    title: t.name.length >= 1 && t.name.length <= 500 ? t.name : null,
    year: t.year >= 1800 && t.year <= 3000 ? t.year : null,
  };
}

const label = (t: ExportTitle, extra = '') => `${t.name} (${t.year})${extra}, ${t.type} ${t.movie_db_id}`;
const episodeLabel = (season: number | null, episode: number | null) => (season === null ? '' : episode === null ? ` season ${season}` : ` S${season}E${episode}`);

/** The records of one element of an array of the document. */
function recordsOf<K extends ExportArray>(name: K, e: ExportElement<K>, row: number): ImportRecord[] {
  const at = (text: string): SourceRow => ({ file: name, row, label: text });
  switch (name) {
    case 'history': {
      const h = e as ExportElement<'history'>;
      const { type: _type, ...ref } = titleRef(h.title);
      return [{ at: at(label(h.title, episodeLabel(h.season, h.episode))), kind: 'history', item: { ...ref, watched_at: h.watched_at, season: h.season, episode: h.episode, runtime_minutes: h.runtime_minutes } }];
    }
    case 'ratings': {
      const r = e as ExportElement<'ratings'>;
      return [{ at: at(label(r.title, episodeLabel(r.season, r.episode))), kind: 'rating', item: { ...titleRef(r.title), season: r.season, episode: r.episode, rating: r.rating, rated_at: r.rated_at } }];
    }
    case 'favourites': {
      const f = e as ExportElement<'favourites'>;
      return [{ at: at(label(f.title)), kind: 'own_favourite', title: titleRef(f.title), favourited_at: f.favourited_at }];
    }
    case 'show_statuses': {
      const s = e as ExportElement<'show_statuses'>;
      return [{ at: at(label(s.title)), kind: 'own_show_status', title: titleRef(s.title), status: s.status, set_by: s.set_by }];
    }
    case 'watchlist': {
      const w = e as ExportElement<'watchlist'>;
      return [{ at: at(label(w.title)), kind: 'own_watchlist_item', title: titleRef(w.title), added_at: w.added_at }];
    }
    case 'lists': {
      const l = e as ExportElement<'lists'>;
      return [
        {
          at: at(l.name),
          kind: 'own_list',
          name: l.name,
          description: l.description,
          is_public: l.is_public,
          list_kind: l.kind,
          dynamic_filters: l.dynamic_filters,
          items: l.items.map((i, n) => ({ title: titleRef(i.title), added_at: i.added_at, at: { file: `lists/${row}`, row: n + 1, label: label(i.title) } })),
        },
      ];
    }
    case 'collection': {
      const c = e as ExportElement<'collection'>;
      return [{ at: at(label(c.title, c.season === null ? '' : ` season ${c.season}`)), kind: 'own_collection_item', title: titleRef(c.title), format: c.format, season: c.season, notes: c.notes, added_at: c.added_at }];
    }
    case 'continue_watching': {
      const c = e as ExportElement<'continue_watching'>;
      return [
        {
          at: at(label(c.title, episodeLabel(c.season, c.episode))),
          kind: 'own_continue_watching',
          title: titleRef(c.title),
          season: c.season,
          episode: c.episode,
          progress: c.progress,
          position_seconds: c.position_seconds,
          duration_seconds: c.duration_seconds,
          updated_at: c.updated_at,
        },
      ];
    }
  }
  return [];
}

/** Where and why an element does not fit the schema, e.g. `title.movie_db_id: Too small: expected number to be >=1`. */
function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

function parse<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ImportFileError(`The export is malformed at ${where}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

const SCALARS = new Set(['stringValue', 'numberValue', 'nullValue', 'trueValue', 'falseValue']);

// The parser function's markers (stream-chain's protocol, registered symbols so that any copy of the
// library shares them): `none` asks it to flush at the end of input, a `many` result holds several tokens.
const none = Symbol.for('object-stream.none');
const MANY = Symbol.for('object-stream.many');
const isMany = (o: unknown): o is { values: unknown[] } => typeof o === 'object' && o !== null && (o as Record<symbol, unknown>)[MANY] === 1;

/**
 * The file's JSON tokens, parsed as its bytes arrive (the parser's pure function, no stream: a failure
 * at the end of the input, when the parser is told there is no more, is a truncated file; a failure
 * before is not JSON).
 */
async function* tokensOf(file: AsyncIterable<Uint8Array>): AsyncGenerator<Token> {
  // Packed tokens only (keys, strings and numbers whole): what the assembler reads.
  const parse = jsonParser({ streamValues: false }) as unknown as (text: string | typeof none) => unknown;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const run = (input: string | typeof none, atEnd: boolean): Token[] => {
    let out: unknown;
    try {
      out = parse(input);
    } catch (err) {
      if (atEnd) throw new ImportFileError('The export ends too early: the file is truncated');
      throw new ImportFileError(`This is not a readable JSON document: ${(err as Error).message}`);
    }
    return isMany(out) ? (out.values as Token[]) : [];
  };
  try {
    for await (const chunk of file) yield* run(decoder.decode(chunk, { stream: true }), false);
    yield* run(decoder.decode(), false);
  } catch (err) {
    if (err instanceof TypeError) throw new ImportFileError('This is not a readable JSON document: it is not UTF-8 text');
    throw err;
  }
  yield* run(none, true);
}

/** Reads the document's tokens: whole values (head members, array elements) assembled one at a time. */
class TokenReader {
  readonly #it: AsyncIterator<Token>;
  constructor(tokens: AsyncIterable<Token>) {
    this.#it = tokens[Symbol.asyncIterator]();
  }

  async next(): Promise<Token> {
    const r = await this.#it.next();
    if (r.done) throw new ImportFileError('The export ends too early: the file is truncated');
    return r.value;
  }

  /** The value starting with `first`. */
  async value(first: Token): Promise<unknown> {
    if (SCALARS.has(first.name)) return first.name === 'numberValue' ? Number(first.value) : first.value;
    if (first.name !== 'startObject' && first.name !== 'startArray') throw new ImportFileError(`The export is malformed: unexpected ${first.name}`);
    const asm = new Assembler();
    asm.consume(first as never);
    while (!asm.done) asm.consume((await this.next()) as never);
    return asm.current;
  }

  async end(): Promise<void> {
    if (!(await this.#it.next()).done) throw new ImportFileError('The export has more after its end');
  }
}

export const ownImporter: Importer = async function* own(file) {
  const reader = new TokenReader(tokensOf(file));
  if ((await reader.next()).name !== 'startObject') throw new ImportFileError(`This is not a ${EXPORT_FORMAT} document: it is not a JSON object`);
  let format: unknown;
  let version: unknown;
  const checked = () => format === EXPORT_FORMAT && version === EXPORT_VERSION;
  const head: Partial<Record<HeadKey, unknown>> = {};
  for (;;) {
    const t = await reader.next();
    if (t.name === 'endObject') break;
    const key = String(t.value);
    const first = await reader.next();
    if (isArrayName(key)) {
      // The document names itself before any data: nothing is read from a file of another kind.
      if (format !== EXPORT_FORMAT) throw new ImportFileError(`This is not a ${EXPORT_FORMAT} document: ${format === undefined ? 'it has no format before its data' : `its format is ${JSON.stringify(format)}`}`);
      if (version !== EXPORT_VERSION) throw new ImportFileError(`This export's version ${JSON.stringify(version ?? null)} is not one this service reads (it reads version ${EXPORT_VERSION})`);
      yield* headRecords(head);
      if (first.name !== 'startArray') throw new ImportFileError(`The export is malformed: ${key} is not an array`);
      const schema = EXPORT_ARRAYS[key].element as z.ZodType<ExportElement<typeof key>>;
      let row = 0;
      for (let e = await reader.next(); e.name !== 'endArray'; e = await reader.next()) {
        row++;
        const element = parse(schema, await reader.value(e), `${key}[${row - 1}]`);
        yield* recordsOf(key, element, row);
      }
      continue;
    }
    const value = await reader.value(first);
    if (key === 'format') {
      format = value;
      if (format !== EXPORT_FORMAT) throw new ImportFileError(`This is not a ${EXPORT_FORMAT} document: its format is ${JSON.stringify(format)}`);
    } else if (key === 'version') {
      version = value;
      if (version !== EXPORT_VERSION) throw new ImportFileError(`This export's version ${JSON.stringify(version)} is not one this service reads (it reads version ${EXPORT_VERSION})`);
    } else if (isHeadKey(key)) head[key] = parse(HEAD_SCHEMAS[key] as z.ZodType<unknown>, value, key);
    // Other members (exported_at) carry nothing to import.
  }
  await reader.end();
  if (!checked()) throw new ImportFileError(`This is not a ${EXPORT_FORMAT} document: ${format === undefined ? 'it has no format' : 'it has no version'}`);
  // A document without arrays still brings its profile and preferences.
  yield* headRecords(head);
};

/** The head's records, once (the first array, or the end of a document without arrays, takes them). */
function* headRecords(head: Partial<Record<HeadKey, unknown>>): Generator<ImportRecord> {
  const p = head.profile as z.infer<typeof exportProfile> | undefined;
  if (p) yield { at: { file: 'profile', row: 1, label: p.username }, kind: 'own_profile', profile: { display_name: p.display_name, avatar_url: p.avatar_url, bio: p.bio, privacy: p.privacy } };
  const prefs = head.preferences as z.infer<typeof exportPreferences> | undefined;
  if (prefs) yield { at: { file: 'preferences', row: 1, label: 'preferences' }, kind: 'own_preferences', preferences: prefs };
  const n = head.notification_preferences as z.infer<typeof exportNotificationPreferences> | undefined;
  if (n) yield { at: { file: 'notification_preferences', row: 1, label: 'notification preferences' }, kind: 'own_notification_preferences', preferences: n };
  delete head.profile;
  delete head.preferences;
  delete head.notification_preferences;
}
