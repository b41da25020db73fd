// A package-lock.json for a throwaway project, pinned to the versions and integrity hashes this repository's
// lockfile holds, with each tarball's address on the registry. With it, `npm install --offline` takes every
// registry package from npm's cache as a tarball (which `npm ci` of the repository leaves there) and never
// needs the registry's metadata, which the cache may not hold.
type LockEntry = { version?: string; integrity?: string; dependencies?: Record<string, string>; [key: string]: unknown };
type Lockfile = { packages: Record<string, LockEntry> };

// What npm needs to install an entry again; the dev/optional/peer flags it works out for itself.
const KEEP = ['version', 'integrity', 'license', 'dependencies', 'peerDependencies', 'peerDependenciesMeta', 'optionalDependencies', 'engines', 'bin'];

/** The lockfile entry Node's resolution would pick for `name` required from the entry at `from`. */
function locate(lock: Lockfile, from: string, name: string): string {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const at = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (lock.packages[at]) return at;
    if (!dir) throw new Error(`the repository's lockfile has no ${name}`);
  }
}

/** Where the registry (`npm config get registry`) serves a version's tarball. */
function tarballUrl(registry: string, name: string, version: string): string {
  return new URL(`${name}/-/${name.split('/').at(-1)}-${version}.tgz`, registry.endsWith('/') ? registry : `${registry}/`).href;
}

/**
 * `manifest` is the project's package.json; `local` maps a dependency's name to its tarball, named as in
 * the manifest (`file:…`), with the tarball's own dependencies and integrity.
 */
export function pinnedLockfile(
  repoLock: Lockfile,
  registry: string,
  manifest: { name: string; dependencies: Record<string, string>; devDependencies: Record<string, string> },
  local: Record<string, { spec: string; version: string; integrity: string; dependencies: Record<string, string> }>,
): object {
  const packages: Record<string, LockEntry> = {
    '': { name: manifest.name, dependencies: manifest.dependencies, devDependencies: manifest.devDependencies },
  };
  const pending: { name: string; from: string }[] = [];
  for (const [name, t] of Object.entries(local)) {
    packages[`node_modules/${name}`] = { version: t.version, resolved: t.spec, integrity: t.integrity, dependencies: t.dependencies };
    pending.push(...Object.keys(t.dependencies).map((dep) => ({ name: dep, from: '' })));
  }
  pending.push(...Object.keys(manifest.devDependencies).map((name) => ({ name, from: '' })));
  for (let next = pending.pop(); next; next = pending.pop()) {
    const at = locate(repoLock, next.from, next.name);
    if (packages[at]) continue;
    const entry = repoLock.packages[at] as LockEntry;
    const name = at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const kept = Object.fromEntries(Object.entries(entry).filter(([k]) => KEEP.includes(k)));
    packages[at] = { ...kept, resolved: tarballUrl(registry, name, String(entry.version)) };
    // Peers npm would install are needed too (e.g. TypeScript for @trpc/client); optional ones are not.
    const meta = (entry.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>;
    const peers = Object.keys((entry.peerDependencies ?? {}) as Record<string, string>).filter((p) => !meta[p]?.optional);
    pending.push(...[...Object.keys(entry.dependencies ?? {}), ...peers].map((dep) => ({ name: dep, from: at })));
  }
  return { name: manifest.name, lockfileVersion: 3, requires: true, packages };
}
