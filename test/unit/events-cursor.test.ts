// The rule each event stream applies to live events (core/events/cursor.ts): ids go out strictly
// increasing and never twice; an event whose predecessor in the user's log was not sent is a gap.
import { describe, expect, it } from 'vitest';
import { StreamCursor } from '../../src/core/events/cursor.ts';

const ev = (id: number, prev: number | null) => ({ id: String(id), prev: prev === null ? null : String(prev) });

describe('StreamCursor', () => {
  it('sends the next event of the chain and moves on', () => {
    const c = new StreamCursor('10');
    expect(c.accept(ev(11, 10))).toBe('send');
    expect(c.accept(ev(15, 11))).toBe('send');
    expect(c.last).toBe('15');
  });

  it('skips an event sent already or older than the start (a publish that went through twice, a late one)', () => {
    const c = new StreamCursor('10');
    expect(c.accept(ev(11, 10))).toBe('send');
    expect(c.accept(ev(11, 10))).toBe('skip');
    expect(c.accept(ev(9, 8))).toBe('skip');
    expect(c.accept(ev(10, 9))).toBe('skip');
    expect(c.last).toBe('11');
  });

  it('calls a gap when the predecessor was not sent, and does not move', () => {
    const c = new StreamCursor('10');
    expect(c.accept(ev(13, 12))).toBe('gap');
    expect(c.last).toBe('10');
    c.sent('12');
    expect(c.accept(ev(13, 12))).toBe('send');
  });

  it('a stream that started on an empty log takes the first event of the log, and calls a gap on any later one', () => {
    expect(new StreamCursor(null).accept(ev(5, null))).toBe('send');
    expect(new StreamCursor(null).accept(ev(6, 5))).toBe('gap');
  });

  it('an event with no predecessor in the log (the older ones were swept) follows anything before it', () => {
    const c = new StreamCursor('3');
    expect(c.accept(ev(40, null))).toBe('send');
  });
});
