import { type InferEntity, defineEntity, p } from '@mikro-orm/core';
import { AppUser } from '../accounts/entities.ts';
import type { BulkResult } from './results.ts';

export const SyncIdempotency = defineEntity({
  name: 'SyncIdempotency',
  primaryKeys: ['user', 'clientId', 'operation', 'idempotencyKey'],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),

    clientId: p.text().primary(),

    operation: p.text().primary(),

    idempotencyKey: p.text().primary(),

    bodyHash: p.text(),

    result: p.json<Omit<BulkResult, 'idempotency_replayed'>>(),

    createdAt: p.datetime().index('sync_idempotency_created_at'),
  },
});

export type ISyncIdempotency = InferEntity<typeof SyncIdempotency>;
