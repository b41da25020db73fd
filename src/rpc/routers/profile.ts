// Procedures of the profile module. (Filled in by the module's owner.)
import { router } from '../trpc.ts';

export const profileRouter = router({});
