import { describe, expectTypeOf, it } from 'vitest';
import type { ElicitRequest, ElicitResult } from '../context/types.js';
import type { FormField } from './form-field.js';

describe('ElicitRequest types', () => {
  it('takes the spec fields and a form with every MCP field shape', () => {
    const request: ElicitRequest = {
      toolPath: 'demo.orders.create',
      message: 'Ship how?',
      type: 'form',
      fields: {
        name: { type: 'string', minLength: 1, format: 'email' },
        count: { type: 'integer', minimum: 1, default: 2 },
        gift: { type: 'boolean', default: false },
        plain: { type: 'string', enum: ['a', 'b'] },
        legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'] },
        titled: { type: 'string', oneOf: [{ const: 'a', title: 'A' }] },
        many: { type: 'array', items: { type: 'string', enum: ['a'] }, maxItems: 1 },
        manyTitled: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] } },
      },
      required: ['name'],
    };
    expectTypeOf(request.fields).toEqualTypeOf<Record<string, FormField> | undefined>();
    expectTypeOf<ElicitResult['data']>().toEqualTypeOf<Record<string, unknown> | undefined>();
  });

  it('rejects field shapes MCP does not have', () => {
    // @ts-expect-error there is no date type; use a string with format: 'date'
    const wrongType: FormField = { type: 'date' };
    // @ts-expect-error a boolean's default is a boolean
    const wrongDefault: FormField = { type: 'boolean', default: 'yes' };
    // @ts-expect-error an option needs a title
    const wrongOption: FormField = { type: 'string', oneOf: [{ const: 'a' }] };
    void [wrongType, wrongDefault, wrongOption];
  });
});
