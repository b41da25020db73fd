// The log of background job runs.
import { defineEntity, p } from '@mikro-orm/core';

export const JobRun = defineEntity({
  name: 'JobRun',
  indexes: [
    {
      name: 'job_run_job_started',
      properties: ['job', 'startedAt'],
      columns: [{ name: 'job' }, { name: 'startedAt', sort: 'DESC' }],
    },
  ],
  properties: {

    id: p.bigint('string').primary().autoincrement().generated('identity'),

    job: p.text(),

    instance: p.text(),

    queueJobId: p.uuid().nullable(),

    tick: p.datetime().nullable(),
    attempt: p.integer().default(0),

    startedAt: p.datetime(),

    finishedAt: p.datetime(),

    outcome: p.enum(['ok', 'failed']),

    summary: p.json<Record<string, number>>().nullable(),

    error: p.text().nullable(),
  },
});
