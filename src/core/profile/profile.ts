// The user's own profile: display name, avatar, bio and privacy (GET / PATCH /me/profile). Each update
// records the whole profile as a `profile` change (resource id: the user id) in the same transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { checkAvatarUrl, checkDisplayName } from '../accounts/rules.ts';
import { recordChange } from '../changes/record.ts';
import { transaction } from '../db/transaction.ts';
import { ApiError, invalidRequest } from '../errors.ts';
import { profileOf, updateProfileColumns, type StoredProfile } from './repository.ts';
import { BIO_MAX, type Profile, type ProfileUpdate } from './settings-schemas.ts';

// Control characters other than the line feed (bios may have paragraphs).
// eslint-disable-next-line no-control-regex
const BIO_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

const toProfile = (r: StoredProfile): Profile => ({
  id: r.id,
  username: r.username,
  displayName: r.display_name,
  avatarUrl: r.avatar_url,
  bio: r.bio,
  privacy: r.profile_privacy,
  joinedAt: r.created_at.toISOString(),
});

/** Line breaks are kept as "\n"; counted in characters (code points), after trimming. */
function checkBio(value: string): string {
  const bio = value.replace(/\r\n?/g, '\n').trim();
  if ([...bio].length > BIO_MAX || BIO_CONTROL.test(bio)) {
    throw invalidRequest(`bio must be at most ${BIO_MAX} characters without control characters other than line breaks`);
  }
  return bio;
}

async function profileRow(em: EntityManager, userId: string, lock: boolean): Promise<StoredProfile> {
  const row = await profileOf(em, userId, lock);
  if (!row) throw new ApiError('invalid_token', 'The token\'s user no longer exists');
  return row;
}

export async function readProfile(em: EntityManager, userId: string): Promise<Profile> {
  return toProfile(await profileRow(em, userId, false));
}

/** Only the fields given change; each is checked by the same rules as at sign-up. */
export async function updateProfile(em: EntityManager, userId: string, input: ProfileUpdate): Promise<Profile> {
  return transaction(em, async (tx) => {
    const current = await profileRow(tx, userId, true);
    const next = {
      display_name: input.displayName === undefined ? current.display_name : checkDisplayName(input.displayName, current.username),
      avatar_url: input.avatarUrl === undefined ? current.avatar_url : checkAvatarUrl(input.avatarUrl),
      bio: input.bio === undefined ? current.bio : checkBio(input.bio),
      profile_privacy: input.privacy ?? current.profile_privacy,
    };
    const updated = toProfile(await updateProfileColumns(tx, userId, next));
    await recordChange(tx, userId, { resource: 'profile', resourceId: userId, op: 'upsert', data: updated });
    return updated;
  });
}
