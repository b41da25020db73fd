// Procedures of the lists module. (Filled in by the module's owner.)
import { router } from '../trpc.ts';

export const listsRouter = router({});
