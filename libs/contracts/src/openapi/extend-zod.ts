import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Gives every zod schema `.openapi(…)`: the OpenAPI facts a refinement cannot state (a pattern, a format, a range).
// Contract files that annotate a schema import `z` from here, so the extension is in place before they run.
extendZodWithOpenApi(z);

export { z };
