// A nudge to this process's webhook deliverer after a write committed, so a change goes out within
// moments rather than at the next tick of the job (src/jobs/webhooks.ts listens). Process-wide, like the
// metrics: a nudge with no deliverer listening costs nothing, and a spurious one costs one pass.
const listeners = new Set<() => void>();

export function wakeWebhooks(): void {
  for (const listener of listeners) listener();
}

/** Calls `listener` on every nudge until the returned function is called. */
export function onWebhookWake(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
