// The routes the running app defines, read from its Express router, for tests that walk every route.
import type { Express } from 'express';
import type { TestApp } from './app.ts';

export type Route = { method: string; template: string };

type Layer = { route?: { path: string | string[]; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };

/**
 * Every route the Express app defines, nested routers included (none is mounted below a path): its
 * method in capitals (a route for every method, `all`, as POST) and its path template (`:param`s).
 */
export function expressRoutes(app: TestApp): Route[] {
  const express = app.app as unknown as Express & { router: { stack: Layer[] } };
  const out: Route[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const method of Object.keys(layer.route.methods)) {
          for (const template of paths) out.push({ method: method === '_all' ? 'POST' : method.toUpperCase(), template });
        }
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk(express.router.stack);
  return out;
}
