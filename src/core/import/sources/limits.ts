// How much of an uploaded file the readers hold at once, and how far an archive may expand. Files are
// read as streams, so memory follows these bounds, not the file's size: one input piece, what that
// piece inflates to, and one JSON array element or CSV record at a time (plus what a source must keep
// until its archive ends: Letterboxd's watched films, Trakt's custom lists; see each source).

/** Compressed bytes handed to the ZIP inflater at once: ~1,000x at most (deflate's limit) comes out. */
export const ZIP_PIECE_BYTES = 8 * 1024;

/** All members of an archive together, inflated: a 50,000-row history is ~30 MB; beyond this is a ZIP bomb. */
export const MAX_EXPANDED_BYTES = 256 * 1024 * 1024;

/** Members (files and folders) in one archive. */
export const MAX_ZIP_MEMBERS = 10_000;

/** Characters in one JSON array element (a Simkl show with every episode is ~100 KB) or one JSON string. */
export const MAX_JSON_ELEMENT_CHARS = 4 * 1024 * 1024;

/**
 * Bytes of JSON text handed to the parser at once. It turns a whole piece into tokens, and those into
 * elements, before the first is handed on: a piece of 1 MiB (a ZIP member inflates into pieces that
 * large) would keep some 3,000 elements and a million tokens alive together, long enough for V8 to move
 * them to the old generation. 64 KiB pieces keep that to ~200.
 */
export const JSON_PIECE_BYTES = 64 * 1024;

/** Nesting of JSON containers: the export formats go five or six deep. */
export const MAX_JSON_DEPTH = 64;

/** Characters in one CSV record (a Letterboxd list's description is the longest field). */
export const MAX_CSV_RECORD_CHARS = 1024 * 1024;

export const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;
