// Process entry: the service as deployed (serve.ts), built from its configuration alone.
import { serve } from './serve.ts';

await serve();
