// Procedures of the playback module. (Filled in by the module's owner.)
import { router } from '../trpc.ts';

export const playbackRouter = router({});
