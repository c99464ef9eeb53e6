// A tool the platform supplies with a question (Variant 1 and AG-UI bodies): its call is handed back, not run here.
import { z } from 'zod';

export const platformToolSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -'),
    description: z.string().max(2_000).default(''),
    parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }).describe('JSON Schema of the arguments.'),
  })
  .meta({
    id: 'PlatformTool',
    description: 'A tool the platform runs: a call to it ends the stream, and the platform calls again with the result.',
  });
