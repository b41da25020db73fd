// Procedures of the titles module (title detail, seasons, episodes, calendar). (Filled in by the module's owner.)
import { router } from '../trpc.ts';

export const titlesRouter = router({});
