// Waiting on the event, not on the clock: a test polls the state it needs (a row, a log line, a
// counter, an open port) until it holds. The deadline only turns a wait that never ends into a failure
// naming what was awaited, before the test's own timeout does so without a name.

/** Polls `check` every `intervalMs` until it is true; throws after `timeoutMs` naming `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
