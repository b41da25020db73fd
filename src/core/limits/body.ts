// Request body caps (docs/security.md, Limits). A procedure names a larger cap in its metadata (`bodyLimit`);
// everything else, OAuth forms included, takes the default.
export const BODY_LIMIT = 64 * 1024;
/** The bulk sync writes (POST /sync/{resource}). */
export const SYNC_BODY_LIMIT = 512 * 1024;
/**
 * Routes that read their own body as a stream (multipart file uploads, capped by their route): the
 * general body reader leaves them alone.
 */
export const STREAMED_BODY_PATHS: ReadonlySet<string> = new Set(['/account/import']);
