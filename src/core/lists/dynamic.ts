// The titles of a dynamic list: its filters run over the catalog, in the filters' sort order.
import type { EntityManager } from '@mikro-orm/postgresql';
import { selectDynamicTitleIds } from './item-repository.ts';
import type { DynamicFilters } from './schemas.ts';

export function dynamicTitleIds(em: EntityManager, f: DynamicFilters): Promise<string[]> {
  return selectDynamicTitleIds(em, f);
}
