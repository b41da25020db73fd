// The device flow's polling interval (RFC 8628 §3.2, §3.5). The device code response says `interval`
// (5 s); a poll of a pending code that comes sooner than its interval after the previous poll is told
// `slow_down`, and that code's interval grows by 5 s for this and every later poll. oidc-provider 9
// answers a pending code with `authorization_pending` but keeps no polling times (it has the
// `slow_down` error, never raised), so the times live here: one row per device code beside the
// provider's artifacts, keyed by a digest of the code and gone when the code would be.
//
// One statement reads and writes the row, so of polls sent at the same moment one is answered on its
// merits and the others are told to slow down, on every instance alike.
import type { MikroORM } from '@mikro-orm/postgresql';
import { recordPoll } from '../core/tokens/repository.ts';
import { artifactKey } from './adapter.ts';

/** Seconds a device waits between polls, as announced in the device code response. */
export const DEVICE_POLL_INTERVAL = 5;
/** Seconds added to a code's interval by every poll that came too soon. */
const SLOW_DOWN_STEP = 5;
/**
 * A poll this much sooner than the interval still counts as on time: a device polling on a timer of
 * exactly the interval (the `trakt.tv` client's setInterval, say) arrives a few milliseconds early now
 * and then as the service sees it, and a client told `slow_down` may give up.
 */
const POLL_GRACE_SECONDS = 1;

const MODEL = 'DevicePoll';

export type Poll = { tooSoon: boolean; interval: number };

/**
 * Records a poll of a pending device code. The interval is measured from the previous poll of the
 * code, refused ones included: a device that keeps polling early keeps being slowed down.
 */
export async function recordDevicePoll(orm: MikroORM, deviceCode: string, lifetimeSeconds: number): Promise<Poll> {
  const payload = await recordPoll(orm.em.fork(), {
    id: artifactKey(MODEL, deviceCode),
    model: MODEL,
    interval: DEVICE_POLL_INTERVAL,
    slowDown: SLOW_DOWN_STEP,
    graceSeconds: POLL_GRACE_SECONDS,
    lifetimeSeconds,
  });
  return { tooSoon: Boolean(payload.tooSoon), interval: payload.interval ?? DEVICE_POLL_INTERVAL };
}
