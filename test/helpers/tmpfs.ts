// A small tmpfs of a test's own, to fill a filesystem for real (mount needs root: the test machines run
// tests as root). A test that cannot mount one skips with the reason, never passes without it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Tmpfs = { dir: string; unmount(): void };

/** Mounts a tmpfs of `sizeMiB` on a new directory, or says why it could not. */
export function mountTmpfs(sizeMiB: number): Tmpfs | { error: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mts-tmpfs-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0755`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    return { error: (r.stderr || r.error?.message || `mount exited with ${r.status}`).trim() };
  }
  return {
    dir,
    unmount: () => {
      // Lazily if something still holds it (a child process being reaped): it goes once released.
      if (spawnSync('umount', [dir]).status !== 0) spawnSync('umount', ['-l', dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Bytes of the files under `dir`. */
export function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** Writes a file into `dir` until its filesystem has not one byte left; returns the file's path. */
export function fillFilesystem(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'a');
  try {
    for (const size of [1 << 20, 4096, 1]) {
      const chunk = Buffer.alloc(size);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
