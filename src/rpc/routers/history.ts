// Procedures of the history module. (Filled in by the module's owner.)
import { router } from '../trpc.ts';

export const historyRouter = router({});
