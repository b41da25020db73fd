// The background jobs of one instance, started after the server listens and stopped on close. Each
// module's job is a function (orm, log) -> stop; add it to JOBS.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { startListSync } from './list-sync.ts';
import { startOAuthSweep } from './oauth-sweep.ts';
import { startPlaybackSweep } from './playback-sweep.ts';
import { startSyncSweep } from './sync-sweep.ts';

type StartJob = (orm: MikroORM, log: Logger) => () => void;

const JOBS: StartJob[] = [startOAuthSweep, startSyncSweep, startPlaybackSweep, startListSync];

export function startJobs(orm: MikroORM, log: Logger): () => void {
  const stops = JOBS.map((start) => start(orm, log));
  return () => {
    for (const stop of stops) stop();
  };
}
