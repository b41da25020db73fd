// `npm run bench`: every benchmark, one after the other (they share the machine), figures printed.
// Services mode uses the PostgreSQL of BENCH_DATABASE_URL / DATABASE_URL (default the local `test`
// server) with a database of its own, `mts_bench`, kept between runs so the catalog is imported once.
import os from 'node:os';
import { benchAuth, printAuth } from './auth.ts';
import { benchCatalog, printCatalog } from './catalog.ts';
import { benchCollection, printCollection } from './collection.ts';
import { benchLibrary, printLibrary } from './library.ts';
import { benchLimits, printLimits } from './limits.ts';
import { benchLists, printLists } from './lists.ts';
import { benchStartup, printStartup } from './startup.ts';
import { benchSync, printSync } from './sync.ts';
import { benchPlayback, printPlayback } from './playback.ts';
import { benchRatings, printRatings } from './ratings.ts';

console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
printStartup(await benchStartup());
printCatalog(await benchCatalog('services'));
printCatalog(await benchCatalog('embedded'));
printAuth(await benchAuth());
printLimits(await benchLimits());
printCollection(await benchCollection());
printLibrary(await benchLibrary());
printRatings(await benchRatings());
printLists(await benchLists());
printPlayback(await benchPlayback());
printSync(await benchSync());
