// The service's router type, as the package's sources see it inside the repository. The published
// declarations never point here: the build writes dist/app-router.d.ts, the same procedures with their
// input and output types spelled out and without the server-only root types (request context, metadata).
export type { AppRouter } from '../../../src/rpc/app-router.ts';
