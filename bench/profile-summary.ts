// `node bench/profile-summary.ts <file.cpuprofile> [top]`: where a V8 CPU profile's time went, as self
// time by function and by package (node_modules) or file of this repository, the top 30 of each (or
// `top`), in ms and as a share of the busy (not idle) time. Profiles come from a service started with
// BENCH_CPU_PROF=dir (bench/lib.ts spawnService).
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib.ts';

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

/** The package a script belongs to (`pg`, `@trpc/server`), else its path in the repository, else V8's own label. */
function owner(f: CallFrame): string {
  // V8's own entries ((idle), (program), (garbage collector)) by their name; other frames without a script are native code.
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : '(native)';
  const url = f.url.startsWith('file://') ? decodeURIComponent(new URL(f.url).pathname) : f.url;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith('node:')) return url;
  return path.isAbsolute(url) ? path.relative(root, url) : url;
}

function label(f: CallFrame): string {
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : `${f.functionName} (native)`;
  return `${f.functionName || '(anonymous)'} ${owner(f)}:${f.lineNumber + 1}`;
}

/** Self time in ms by key, over the profile's samples (each sample's time is the delta to the next). */
function selfTime(p: Profile, key: (f: CallFrame) => string): Map<string, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const out = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const k = key(byId.get(id)!);
    out.set(k, (out.get(k) ?? 0) + (p.timeDeltas[i + 1] ?? 0) / 1000);
  });
  return out;
}

function print(title: string, times: Map<string, number>, total: number, top: number): void {
  console.log(`\n${title}`);
  for (const [k, ms] of [...times].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${ms.toFixed(1).padStart(10)} ms ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
  }
}

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node bench/profile-summary.ts <file.cpuprofile> [top]\n');
  process.exit(2);
}
const top = Number(process.argv[3] ?? 30);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byFunction = selfTime(profile, label);
const total = [...byFunction.values()].reduce((a, b) => a + b, 0);
const idle = byFunction.get('(idle)') ?? 0;
console.log(`${file}: ${(total / 1000).toFixed(2)} s sampled, ${(idle / 1000).toFixed(2)} s idle, ${((total - idle) / 1000).toFixed(2)} s busy (percentages of the busy time)`);
print(`self time by function (top ${top})`, byFunction, total - idle, top);
print(`self time by package or file (top ${top})`, selfTime(profile, owner), total - idle, top);
