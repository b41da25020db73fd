// Trakt's media endpoints (filled in by the work).
import type { TraktRoute } from '../route.ts';

export const mediaRoutes: TraktRoute[] = [];
