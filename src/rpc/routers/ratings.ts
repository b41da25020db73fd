// Procedures of the ratings module. (Filled in by the module's owner.)
import { router } from '../trpc.ts';

export const ratingsRouter = router({});
