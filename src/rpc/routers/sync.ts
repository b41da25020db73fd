// Procedures of the sync module. (Filled in by the module's owner.)
import { router } from '../trpc.ts';

export const syncRouter = router({});
