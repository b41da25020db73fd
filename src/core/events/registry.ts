// Which event bus belongs to a running service, found from any EntityManager of its database.
// Procedures receive `ctx.em` but no bus (the tRPC context has no field for it), and two service
// instances may run in one process (tests), so the bus is attached to the instance's MikroORM
// configuration, which every fork of its EntityManager shares. Without a bus (CLI, scripts) events
// are still written to the replay log, only not pushed.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { EventBus } from './bus.ts';

const buses = new WeakMap<object, EventBus>();

export function attachEventBus(orm: MikroORM, bus: EventBus): void {
  buses.set(orm.em.config, bus);
}

export function eventBusOf(em: EntityManager): EventBus | undefined {
  return buses.get(em.config);
}
