import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createTestContext } from '../testing/create-test-context.js';
import { askForm } from './ask-form.js';

describe('askForm types', () => {
  it('types data by the schema: a zod schema in, typed data out', async () => {
    const ctx = createTestContext();
    const answer = await askForm(ctx, {
      message: 'Ship how?',
      schema: z.object({
        speed: z.enum(['std', 'exp']).default('std'),
        note: z.string().optional(),
      }),
    });
    if (answer.approved) {
      expectTypeOf(answer.data).toEqualTypeOf<{
        speed: 'std' | 'exp';
        note?: string | undefined;
      }>();
    } else {
      expectTypeOf(answer.data).toEqualTypeOf<undefined>();
    }
  });

  it('takes only an object schema', () => {
    const ctx = createTestContext();
    // @ts-expect-error a form is an object of fields, not a string
    void askForm(ctx, { message: 'Name?', schema: z.string() });
  });
});
