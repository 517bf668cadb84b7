import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withoutSafeIntegerBounds } from './safe-integer-bounds.js';

// Issue 33: the bounds zod writes on every integer were an eighth of a listed tool's bytes.
describe('withoutSafeIntegerBounds', () => {
  it("drops zod's safe-integer bounds and keeps the author's, at any depth", () => {
    const schema = z.toJSONSchema(
      z.object({
        limit: z.number().int().optional(),
        page: z.number().int().min(1),
        ratio: z.number().max(Number.MAX_SAFE_INTEGER),
        rows: z.array(z.object({ n: z.number().int().max(10) })),
        pick: z.union([z.number().int(), z.string()]).default(Number.MAX_SAFE_INTEGER),
      }),
      { io: 'input' },
    ) as Record<string, unknown>;
    expect(withoutSafeIntegerBounds(schema)).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        limit: { type: 'integer' },
        page: { type: 'integer', minimum: 1 },
        // Not an integer: a bound on a number is the author's.
        ratio: { type: 'number', maximum: Number.MAX_SAFE_INTEGER },
        rows: {
          type: 'array',
          items: {
            type: 'object',
            properties: { n: { type: 'integer', maximum: 10 } },
            required: ['n'],
          },
        },
        pick: {
          default: Number.MAX_SAFE_INTEGER,
          anyOf: [{ type: 'integer' }, { type: 'string' }],
        },
      },
      required: ['page', 'ratio', 'rows'],
    });
  });

  it('leaves the schema it was given as it was', () => {
    const schema = { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER };
    expect(withoutSafeIntegerBounds(schema)).toEqual({ type: 'integer' });
    expect(schema).toEqual({ type: 'integer', minimum: -Number.MAX_SAFE_INTEGER });
  });
});
