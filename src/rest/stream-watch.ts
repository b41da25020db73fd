// Ends the event streams whose access token no longer stands. A stream outlives the request that
// opened it, so the bearer check at its start is not enough: revoking the token (RFC 7009, the access or
// the refresh token: either drops the grant's tokens), revoking the app at /account/connected-apps, its
// deactivation (`admin app:deactivate`, another process), its deletion by its owner, or a token's expiry
// would otherwise leave it delivering for up to an hour. Rather than each of those paths telling every
// instance (the CLI has no bus, and a hung Redis would lose the message), each instance re-checks the
// tokens behind its open streams every WATCH_TIMING.everyMs, in one statement for all of them, with the
// bearer check's own rule (actorOfTokenRow), and ends the streams whose token is gone. Whoever revokes,
// wherever, the stream ends within about a second plus that statement.
//
// A password set by the operator (`user:set-password`) keeps the user's grants (a documented decision),
// but it ends every session: it ends the user's streams too (the statement carries a mark of the
// password), and their clients reconnect through the full token check.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { tokenRowsWithPasswordMark } from '../core/tokens/repository.ts';
import { actorOfTokenRow } from '../oauth/bearer.ts';

const WATCH_TIMING = {
  /** How often the open streams' tokens are re-checked (one statement per instance each time). */
  everyMs: 1_000,
};

/** Why a watched stream must end. */
type EndReason = 'token' | 'password';

export type Watched = {
  /** The stored key of the access token behind the stream (the ticket's asking token for `?ticket=`). */
  tokenKey: string;
  /** The user's password mark when the stream opened. */
  passwordMark: string | null;
  end(reason: EndReason): void;
};

export class StreamWatch {
  readonly #orm: MikroORM;
  readonly #log: Logger;
  readonly #streams = new Set<Watched>();
  #timer: NodeJS.Timeout | null = null;
  /** A check is under way: the next tick does not start another beside it. */
  #checking = false;

  constructor(orm: MikroORM, log: Logger) {
    this.#orm = orm;
    this.#log = log;
  }

  /** The token's standing now: its user's password mark, or null when the token does not stand. */
  async standing(tokenKey: string): Promise<{ passwordMark: string | null } | null> {
    const [row] = await tokenRowsWithPasswordMark(this.#orm.em.fork(), [tokenKey]);
    return row && actorOfTokenRow(row) ? { passwordMark: row.password_mark } : null;
  }

  /** Watches an open stream; returns what forgets it (when the stream ends). */
  add(stream: Watched): () => void {
    this.#streams.add(stream);
    // A timer only while streams are open; unref: it never holds the process up.
    this.#timer ??= setInterval(() => void this.#check(), WATCH_TIMING.everyMs).unref();
    return () => {
      this.#streams.delete(stream);
      if (this.#streams.size === 0 && this.#timer) {
        clearInterval(this.#timer);
        this.#timer = null;
      }
    };
  }

  async #check(): Promise<void> {
    if (this.#checking || this.#streams.size === 0) return;
    this.#checking = true;
    try {
      const streams = [...this.#streams];
      const rows = await tokenRowsWithPasswordMark(this.#orm.em.fork(), [...new Set(streams.map((s) => s.tokenKey))]);
      const marks = new Map(rows.filter((r) => actorOfTokenRow(r) !== null).map((r) => [r.key, r.password_mark]));
      for (const s of streams) {
        if (!this.#streams.has(s)) continue;
        if (!marks.has(s.tokenKey)) s.end('token');
        else if (marks.get(s.tokenKey) !== s.passwordMark) s.end('password');
      }
    } catch (err) {
      // The streams stay open; the next tick asks again (a revocation needs the database too).
      this.#log.error({ err }, 'event stream token check failed');
    } finally {
      this.#checking = false;
    }
  }
}
