// Processes by pid (Linux): whether one is alive, and what it started.
import fs from 'node:fs';

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of `pid`'s descendants, children first (/proc). */
export function descendantsOf(pid: number): number[] {
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone already
  }
  return children.flatMap((c) => [c, ...descendantsOf(c)]);
}
