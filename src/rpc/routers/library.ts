// Procedures of the library module. (Filled in by the module's owner.)
import { router } from '../trpc.ts';

export const libraryRouter = router({});
