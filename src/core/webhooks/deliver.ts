// The deliverer: follows the change log for each subscription from its own position and posts what its
// app may see, one message per change, in feed order per user.
//
// - One deliverer per subscription across instances: a pass takes a subscription under a lease
//   (compare-and-set on `claim`), settles every page with the same claim (the cursor moves only for the
//   claim that holds it) and gives it back. A pass that dies lets the lease lapse and the next one resumes
//   from the last settled page: at least once, never skipped.
// - In order per user: a page's messages go out in a chain per user, users in parallel
//   (MAX_PARALLEL_USERS), each user's one at a time, each waiting for its 2xx before the next. A chain
//   stops at its first failure; every chain stops starting attempts once one failed or the pass's time is
//   up. The cursor then moves past the longest run of the page that went through (rows the app may not
//   see, messages answered 2xx), up to the first message that failed or was not sent; the messages other
//   chains delivered past it are kept with the cursor (`delivered_ahead`) and passed over on the next
//   page, so a stop sends nothing twice. Only a pass that dies before settling its page sends again what
//   it had sent (at least once: a receiver drops repeats by `webhook-id`).
// - After a failure the subscription waits its backoff (settings.ts), then sends the message at its head
//   alone; the rest follow once it passes. Failures in a row that span pauseAfterMs, pauseAfterFailures or
//   more of them, pause it with the last status or error as the reason; a 410 Gone pauses it at once.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { recordWebhookAttempt, recordWebhookPause, setWebhookBacklog } from '../metrics/webhooks.ts';
import { REVOKED_KIND, resourcesOf } from './kinds.ts';
import { changeMessage, type Message } from './message.ts';
import {
  changePage,
  claimSubscription,
  dueSubscriptions,
  insertDeliveries,
  pruneDeliveries,
  releaseSubscription,
  settleSubscription,
  signingSecrets,
  type DeliveryRecord,
  type PageRow,
  type Position,
  type Settlement,
} from './repository.ts';
import { DELIVERY_LOG_KEEP } from './schemas.ts';
import { postMessage, type Attempt } from './send.ts';
import { retryDelayMs, type WebhookSettings } from './settings.ts';
import { signatureHeaders } from './signing.ts';

/** Change rows read per page (hits and rows passed over alike). */
const PAGE_ROWS = 500;
/** Users whose messages go out at once within a page. */
const MAX_PARALLEL_USERS = 8;
/** Subscriptions a pass serves at once, and at most in all. */
const PARALLEL_SUBSCRIPTIONS = 4;
const DUE_PER_PASS = 100;

export type PassSummary = { subscriptions: number; delivered: number; failed: number; paused: number };

type Claimed = NonNullable<Awaited<ReturnType<typeof claimSubscription>>>;

/** A lease outlasts a pass: its budget, a page's slowest attempt, and room to settle. */
const leaseSeconds = (s: WebhookSettings, budgetMs: number) => Math.ceil((budgetMs + 2 * s.timeoutMs) / 1000) + 30;

/**
 * One pass: the due subscriptions, PARALLEL_SUBSCRIPTIONS at a time, each until it is drained, fails or
 * the pass has run `budgetMs` (a page under way is finished).
 */
export async function deliverDue(em: EntityManager, settings: WebhookSettings, budgetMs: number): Promise<PassSummary> {
  const deadline = Date.now() + budgetMs;
  const due = await dueSubscriptions(em, DUE_PER_PASS);
  const summary: PassSummary = { subscriptions: 0, delivered: 0, failed: 0, paused: 0 };
  let oldest = 0;
  const queue = [...due];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined && Date.now() < deadline; id = queue.shift()) {
      const r = await deliverSubscription(em.fork(), id, settings, deadline, leaseSeconds(settings, budgetMs));
      if (!r) continue;
      summary.subscriptions++;
      summary.delivered += r.delivered;
      summary.failed += r.failed;
      summary.paused += r.paused ? 1 : 0;
      oldest = Math.max(oldest, r.backlogSeconds);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_SUBSCRIPTIONS }, worker));
  setWebhookBacklog(oldest);
  return summary;
}

type SubscriptionResult = { delivered: number; failed: number; paused: boolean; backlogSeconds: number };

async function deliverSubscription(em: EntityManager, id: string, settings: WebhookSettings, deadline: number, lease: number): Promise<SubscriptionResult | null> {
  const claim = randomUUID();
  const sub = await claimSubscription(em, id, claim, lease);
  if (!sub) return null;
  const result: SubscriptionResult = { delivered: 0, failed: 0, paused: false, backlogSeconds: 0 };
  try {
    const followed = { clientId: sub.client_id, resources: resourcesOf(sub.kinds), revoked: sub.kinds.includes(REVOKED_KIND) };
    let at: Position = { xid: sub.xid, id: sub.change_id };
    let ahead = new Set(sub.delivered_ahead);
    let failures = sub.failures;
    let failingSince = sub.failing_since;
    let first = true;
    for (;;) {
      const rows = await changePage(em, followed, at, PAGE_ROWS);
      if (!rows.length) break;
      const hits = rows.filter((r) => r.hit && !ahead.has(r.id));
      if (first && hits.length) result.backlogSeconds = (Date.now() - new Date(hits[0]!.changed_at).getTime()) / 1000;
      first = false;
      const secrets = await signingSecrets(em, id);
      if (!secrets) return result;
      const failuresBefore = failures;
      const sent = await sendPage(sub, hits, [secrets.secret, ...(secrets.previous_secret ? [secrets.previous_secret] : [])], settings, failuresBefore, deadline);
      const done = new Set([...ahead, ...[...sent].filter(([, a]) => a.error === null).map(([r]) => r.id)]);
      const to = passedTo(rows, done, at);
      ahead = new Set(rows.filter((r) => done.has(r.id) && after(r, to)).map((r) => r.id));
      const failed = hits.find((h) => isFailure(sent.get(h)));
      const attempts = [...sent.values()];
      const delivered = attempts.filter((a) => a.error === null).length;
      result.delivered += delivered;
      result.failed += attempts.length - delivered;
      let failure: Settlement['failure'];
      if (failed) {
        const a = sent.get(failed)!;
        failures++;
        failingSince ??= new Date();
        failure = { failures, failingSince, retryInSeconds: retryDelayMs(settings, failures) / 1000, pausedReason: pauseReason(a, failures, failingSince, settings) };
        result.paused = failure.pausedReason !== null;
      }
      const last = lastAttempt(hits, sent, failed);
      const kept = await transaction(em, async (tx) => {
        if (!(await settleSubscription(tx, id, claim, { to, ahead: [...ahead], leaseSeconds: lease, last, anyDelivered: delivered > 0, failure }))) return false;
        await insertDeliveries(tx, logRows(id, sent, failuresBefore > 0 ? hits[0] : undefined, failuresBefore));
        return true;
      });
      if (!kept) return result;
      if (result.paused) recordWebhookPause();
      await pruneDeliveries(em, id, DELIVERY_LOG_KEEP);
      if (failed) break;
      failures = 0;
      failingSince = null;
      at = to;
      if (rows.length < PAGE_ROWS || Date.now() >= deadline) break;
    }
    return result;
  } finally {
    await releaseSubscription(em, id, claim);
  }
}

type Sent = Map<PageRow, Attempt & { message: Message }>;

/**
 * Sends the page's hits: after failures, the first alone (a probe), then, once it passes, the rest; each
 * user's in order, users in parallel. A chain stops at its first failure, and every chain stops starting
 * new attempts once any has failed or the pass's time is up (a slow receiver's page ends within one
 * attempt's timeout of the deadline, well inside the lease; what was not sent waits for the next pass).
 */
async function sendPage(sub: Claimed, hits: PageRow[], secrets: string[], settings: WebhookSettings, failures: number, deadline: number): Promise<Sent> {
  const sent: Sent = new Map();
  const url = new URL(sub.url);
  let stop = false;
  const late = () => stop || Date.now() >= deadline;
  const send = async (row: PageRow) => {
    const message = changeMessage(row);
    const headers = signatureHeaders(secrets, message.id, new Date(), message.body);
    const attempt = await postMessage(url, message.body, headers, settings);
    recordWebhookAttempt(attempt);
    sent.set(row, { ...attempt, message });
    if (attempt.error !== null) stop = true;
  };
  let rest = hits;
  if (failures > 0 && hits.length) {
    await send(hits[0]!);
    if (stop) return sent;
    rest = hits.slice(1);
  }
  const byUser = new Map<string, PageRow[]>();
  for (const h of rest) byUser.set(h.user_id, [...(byUser.get(h.user_id) ?? []), h]);
  const chains = [...byUser.values()];
  const worker = async () => {
    for (let chain = chains.shift(); chain && !late(); chain = chains.shift()) {
      for (const row of chain) {
        if (late()) break;
        await send(row);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(MAX_PARALLEL_USERS, chains.length) }, worker));
  return sent;
}

const isFailure = (a: Attempt | undefined) => a !== undefined && a.error !== null;

/** Whether the row lies after the position in feed order. */
const after = (r: PageRow, p: Position) => BigInt(r.xid) > BigInt(p.xid) || (r.xid === p.xid && BigInt(r.id) > BigInt(p.id));

/** The position after the page's longest run that went through: rows passed over and messages delivered (`done`). */
function passedTo(rows: PageRow[], done: ReadonlySet<string>, from: Position): Position {
  let to = from;
  for (const r of rows) {
    if (r.hit && !done.has(r.id)) break;
    to = { xid: r.xid, id: r.id };
  }
  return to;
}

/** The failed attempt's outcome, or the last delivered one's in page order. */
function lastAttempt(hits: PageRow[], sent: Sent, failed: PageRow | undefined) {
  const row = failed ?? hits.filter((h) => sent.has(h)).at(-1);
  if (!row) return undefined;
  const a = sent.get(row)!;
  return { status: a.status, error: a.error };
}

/** Null while the subscription should keep trying; else why it stops. */
function pauseReason(a: Attempt, failures: number, since: Date, s: WebhookSettings): string | null {
  if (a.status === 410) return 'The receiver answered 410 Gone';
  if (failures < s.pauseAfterFailures || Date.now() - since.getTime() < s.pauseAfterMs) return null;
  return `${failures} failed attempts in a row since ${since.toISOString()}; the last: ${a.error}`;
}

/** The log rows of a page's attempts, in the order they were made; a probe counts the failures before it. */
function logRows(subscriptionId: string, sent: Sent, probe: PageRow | undefined, failuresBefore: number): DeliveryRecord[] {
  return [...sent].map(([row, a]) => ({
    subscription_id: subscriptionId,
    message_id: a.message.id,
    type: a.message.type,
    user_id: row.user_id,
    attempt: row === probe ? failuresBefore + 1 : 1,
    status: a.status,
    error: a.error,
    duration_ms: a.durationMs,
  }));
}
