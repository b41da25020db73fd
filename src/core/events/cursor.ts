// What one open stream has sent, and whether the next live event may follow it. The bus delivers at
// most once and, across instances, not always in order: an event can come twice (a publish that timed
// out and still went through) or after a later one (two instances publishing one after the other).
// A stream sends ids in strictly increasing order and never one twice; an event whose predecessor it
// has not sent means it missed one, and the stream must end so the client replays from the log.
import type { StreamEvent } from './bus.ts';

export type Verdict = 'send' | 'skip' | 'gap';

export class StreamCursor {
  /** The newest id this stream has sent (or starts after); null: the user's log was empty at the start. */
  #last: bigint | null;

  constructor(startAfter: string | null) {
    this.#last = startAfter === null ? null : BigInt(startAfter);
  }

  get last(): string | null {
    return this.#last === null ? null : String(this.#last);
  }

  /**
   * `skip`: sent already, or older than where the stream started. `gap`: an event between the last one
   * sent and this one exists in the log but did not come. `send`: the next one; it is now the last sent.
   */
  accept(e: Pick<StreamEvent, 'id' | 'prev'>): Verdict {
    const id = BigInt(e.id);
    if (this.#last !== null && id <= this.#last) return 'skip';
    if (e.prev !== null && (this.#last === null || BigInt(e.prev) > this.#last)) return 'gap';
    this.#last = id;
    return 'send';
  }

  /** An event of the replay log, read in order after the last one sent. */
  sent(id: string): void {
    this.#last = BigInt(id);
  }
}
