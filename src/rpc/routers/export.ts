// The full export for official apps (GET /me/export): the document of everything the user has
// (core/export). Over REST the arrays are streamed page by page after the head; over /trpc the answer is
// the whole document as one value.
import { z } from 'zod';
import { exportHead, exportJson, readExport, withoutArrays } from '../../core/export/document.ts';
import { EXPORT_FORMAT, EXPORT_VERSION, exportDocument } from '../../core/export/schema.ts';
import { officialAllScopesProcedure, router } from '../trpc.ts';

/** Every read scope the document's parts need: a token that could not read a part cannot export it. */
export const EXPORT_SCOPES = ['profile:read', 'history:read', 'ratings:read', 'lists:read', 'collection:read', 'playback:read', 'notifications:read'] as const;

const DESCRIPTION = `The document of everything the user has: profile, preferences, notification preferences, history, ratings (every level), favourites, show statuses, the watchlist, the lists the user owns with their items, the collection and Continue Watching. Every title is named by every id the catalog knows, and by name and year. \`format\` is \`${EXPORT_FORMAT}\`, \`version\` ${EXPORT_VERSION}; the fields are described in the project's docs/export-format.md. The body is streamed (chunked) as it is read and carries \`Content-Disposition: attachment\`; a failure midway cuts the connection, so a complete JSON document is a complete export. Official apps only: other apps get 403 \`first_party_only\`. The token needs every scope listed (403 \`insufficient_scope\` names the first missing). Counted in a bucket of its own: 10 per hour per user.`;

export const exportRouter = router({
  document: officialAllScopesProcedure(EXPORT_SCOPES)
    .meta({
      openapi: { method: 'GET', path: '/me/export', tags: ['account'], protect: true, summary: 'Everything the user has, as one JSON document (official apps only)', description: DESCRIPTION },
      limits: ['export'],
    })
    .input(z.strictObject({}).optional())
    .output(exportDocument)
    .query(async ({ ctx }) => {
      const now = new Date();
      ctx.response.headers['Content-Disposition'] = `attachment; filename="${EXPORT_FORMAT}-${now.toISOString().slice(0, 10)}.json"`;
      ctx.response.headers['Cache-Control'] = 'no-store';
      if (ctx.transport === 'trpc') return readExport(ctx.em, ctx.actor.userId, now);
      // REST: the head is answered (and validated) here; the facade streams the document in its place.
      const head = await exportHead(ctx.em, ctx.actor.userId, now);
      ctx.response.stream = exportJson(ctx.em, ctx.actor.userId, head);
      return withoutArrays(head);
    }),
});
