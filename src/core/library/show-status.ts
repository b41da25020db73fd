// Automatic show-status transitions after watches are logged (DESIGN §7). Called by logWatches in the
// same transaction. (The library module fills in the rules.)
import type { EntityManager } from '@mikro-orm/postgresql';

export async function applyWatchTransitions(_tx: EntityManager, _userId: string, _titleIds: string[]): Promise<void> {}
