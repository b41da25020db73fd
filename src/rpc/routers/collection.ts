// Procedures of the collection module. (Filled in by the module's owner.)
import { router } from '../trpc.ts';

export const collectionRouter = router({});
