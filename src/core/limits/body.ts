// Request body caps (spec: Limits). A procedure names a larger cap in its metadata (`bodyLimit`);
// everything else, OAuth forms included, takes the default.
export const BODY_LIMIT = 64 * 1024;
/** The bulk sync writes (POST /sync/{resource}). */
export const SYNC_BODY_LIMIT = 512 * 1024;
