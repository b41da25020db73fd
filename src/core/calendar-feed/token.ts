// The calendar feed's capability token: `cal_` and 32 random bytes (security/capability-token.ts), stored
// as its SHA-256 digest, which the unique index finds the feed by.
import { capabilityHash, capabilityToken } from '../security/capability-token.ts';

const token = capabilityToken('cal_');

export const newFeedToken = token.make;

/** Whether `value` has a feed token's shape (nothing else is looked up). */
export const isFeedToken = token.isShaped;

export const feedTokenHash = capabilityHash;
