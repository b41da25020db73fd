// A list in Trakt's shape, from the service's list row and its owner. Trakt's privacy has four values
// and the service's lists two (public or not): `public` and `link` are public lists (anyone may read
// one by id), `private` and `friends` private ones (the service has no friends; its lists' own people
// are the owner and the collaborators). A list reads back as `public` or `private`. The service keeps
// no numbering, comments or sort settings: display_numbers false, allow_comments false, sort rank asc.
import { titleSlug } from '../core/catalog/title-keys.ts';
import type { ListRowWithLikes } from '../core/lists/repository.ts';
import type { PathUser } from './user-path.ts';
import { traktProfile } from './user-profile.ts';

export const LIST_PRIVACY = ['private', 'link', 'friends', 'public'] as const;
export type ListPrivacy = (typeof LIST_PRIVACY)[number];

/** Whether a list of Trakt's privacy is a public list of the service's. */
export const isPublicPrivacy = (p: ListPrivacy): boolean => p === 'public' || p === 'link';

/** A list's slug: its name as a title's slug is made, without a year. */
export const listSlug = (name: string): string => titleSlug(name, null);

export function traktList(row: ListRowWithLikes, owner: PathUser, baseUrl: string) {
  return {
    name: row.name,
    description: row.description || null,
    privacy: row.is_public ? 'public' : 'private',
    share_link: `${baseUrl}/lists/${row.id}`,
    type: 'personal',
    display_numbers: false,
    allow_comments: false,
    sort_by: 'rank',
    sort_how: 'asc',
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    item_count: row.item_count,
    comment_count: 0,
    likes: row.likes,
    ids: { trakt: Number(row.id), slug: listSlug(row.name) },
    user: traktProfile(owner, false),
  };
}
