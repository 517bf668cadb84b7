import { describe, expect, it } from 'vitest';
import type { ElicitRequest } from '../context/types.js';
import { formatIssues } from '../tool/schema-issue.js';
import { elicitForm } from './elicit-form.js';
import type { ElicitForm } from './form-field.js';
import { validateElicitRequest } from './validate-elicit-request.js';
import { validateFormAnswer } from './validate-form-answer.js';

const base = { toolPath: 'shop.orders.create', message: 'How should it ship?' };

/** Every enum shape MCP defines (SEP-1330), as the conformance suite asks for them. */
const enumFields: ElicitRequest['fields'] = {
  untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
  titledSingle: {
    type: 'string',
    oneOf: [
      { const: 'value1', title: 'First Option' },
      { const: 'value2', title: 'Second Option' },
    ],
  },
  legacyEnum: { type: 'string', enum: ['opt1', 'opt2'], enumNames: ['Option One', 'Option Two'] },
  untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2'] } },
  titledMulti: {
    type: 'array',
    items: {
      anyOf: [
        { const: 'value1', title: 'First Choice' },
        { const: 'value2', title: 'Second Choice' },
      ],
    },
  },
};

function problems(request: unknown): string {
  const checked = validateElicitRequest(request);
  return checked.success ? '' : formatIssues(checked.issues);
}

describe('validateElicitRequest', () => {
  it('accepts the spec fields, and forms with every kind of field', () => {
    expect(problems({ ...base, args: { id: '1' } })).toBe('');
    expect(problems({ ...base, type: 'form', args: { name: 'Ada' } })).toBe('');
    expect(
      problems({
        ...base,
        type: 'form',
        fields: {
          ...enumFields,
          name: { type: 'string', title: 'Name', minLength: 1, maxLength: 50, default: 'Ada' },
          email: { type: 'string', format: 'email' },
          age: { type: 'integer', minimum: 0, maximum: 150, default: 30 },
          gift: { type: 'boolean', default: false },
        },
        required: ['name', 'titledSingle'],
      }),
    ).toBe('');
  });

  it('reports every problem at once, each at its path', () => {
    expect(
      problems({
        ...base,
        type: 'form',
        fields: {
          size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }], default: 'xl' },
          tags: { type: 'array', items: { type: 'string', enum: [] } },
          legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] },
          count: { type: 'integer', minimum: 5, maximum: 1 },
          colour: { type: 'color' },
          typo: { type: 'string', options: ['a'] },
        },
        required: ['size', 'missing'],
      }).split('\n'),
    ).toEqual([
      'fields.size.default: default is not one of the option values',
      'fields.tags.items.enum: needs at least one value',
      'fields.legacy.enumNames: enumNames needs one label for each value of enum',
      'fields.count.minimum: minimum is more than maximum',
      'fields.colour.type: a field is an object whose type is string, number, integer, boolean or array',
      expect.stringMatching(/^fields\.typo: .*options/),
      'required.1: there is no field missing',
    ]);
  });

  it('keeps fields and required to forms', () => {
    expect(problems({ ...base, fields: { a: { type: 'boolean' } } })).toBe(
      "fields: fields are for type: 'form' only",
    );
    expect(problems({ ...base, type: 'form', required: ['a'] })).toBe(
      'required: required names fields; give `fields` too',
    );
    expect(problems({ ...base, type: 'form', fields: {} })).toBe(
      'fields: a form needs at least one field',
    );
    // toolPath is optional: the gateway knows which tool asks.
    expect(problems({ message: 'x', type: 'poll' })).toBe(
      'type: Invalid option: expected one of "approval"|"form"|"url"',
    );
    expect(problems({ message: 'x' })).toBe('');
  });
});

describe('validateElicitRequest of a link', () => {
  const link = { ...base, type: 'url' as const };

  it('accepts an https link, and http to this machine', () => {
    expect(problems({ ...link, url: 'https://pay.example.com/orders/1042?step=2' })).toBe('');
    expect(problems({ ...link, url: 'http://localhost:5173/connect' })).toBe('');
    expect(problems({ ...link, url: 'http://127.0.0.1:8787/' })).toBe('');
  });

  it('refuses links a person should not be sent to, and url outside a link', () => {
    expect(problems(link)).toBe("url: type: 'url' needs the url to open");
    expect(problems({ ...link, url: 'javascript:alert(1)' })).toBe(
      'url: must be an https: address (http: only to localhost)',
    );
    expect(problems({ ...link, url: 'http://pay.example.com/' })).toBe(
      'url: must be an https: address (http: only to localhost)',
    );
    expect(problems({ ...link, url: 'data:text/html,<h1>hi' })).toBe(
      'url: must be an https: address (http: only to localhost)',
    );
    expect(problems({ ...link, url: 'https://user:pw@pay.example.com/' })).toBe(
      'url: must not carry a user name or password',
    );
    expect(problems({ ...link, url: 'not a url' })).toBe(
      'url: not a URL of at most 2048 characters',
    );
    expect(problems({ ...link, url: `https://a.example/${'x'.repeat(2048)}` })).toBe(
      'url: not a URL of at most 2048 characters',
    );
    expect(problems({ ...base, url: 'https://pay.example.com/' })).toBe(
      "url: url is for type: 'url' only",
    );
    expect(
      problems({ ...link, url: 'https://a.example/', fields: { a: { type: 'boolean' } } }),
    ).toBe("fields: fields are for type: 'form' only");
  });
});

describe('elicitForm', () => {
  it('is undefined for an approval', () => {
    expect(elicitForm({ ...base, args: { id: '1' } })).toBeUndefined();
  });

  it('takes explicit fields as they are, none required unless named', () => {
    expect(elicitForm({ ...base, type: 'form', fields: enumFields })).toEqual({
      fields: enumFields,
      required: [],
    });
    expect(
      elicitForm({ ...base, type: 'form', fields: enumFields, required: ['titledSingle'] })
        ?.required,
    ).toEqual(['titledSingle']);
  });

  it('infers fields from args: values are defaults, string lists are choices, all required', () => {
    expect(
      elicitForm({
        ...base,
        type: 'form',
        args: { name: 'Ada', age: 36, score: 1.5, ok: true, tier: ['free', 'pro'], skip: { a: 1 } },
      }),
    ).toEqual({
      fields: {
        name: { type: 'string', title: 'name', default: 'Ada' },
        age: { type: 'integer', title: 'age', default: 36 },
        score: { type: 'number', title: 'score', default: 1.5 },
        ok: { type: 'boolean', title: 'ok', default: true },
        tier: { type: 'string', title: 'tier', enum: ['free', 'pro'], default: 'free' },
      },
      required: ['name', 'age', 'score', 'ok', 'tier'],
    });
  });
});

describe('validateFormAnswer', () => {
  const form: ElicitForm = {
    fields: {
      ...enumFields,
      name: { type: 'string', minLength: 1 },
      email: { type: 'string', format: 'email' },
      age: { type: 'integer', minimum: 0 },
      gift: { type: 'boolean' },
    },
    required: ['titledSingle', 'name'],
  };

  it('keeps the form fields of a fitting answer and drops anything else', () => {
    expect(
      validateFormAnswer(form, {
        untitledSingle: 'option1',
        titledSingle: 'value1',
        legacyEnum: 'opt1',
        untitledMulti: ['option1', 'option2'],
        titledMulti: ['value2'],
        name: 'Ada',
        age: 36,
        gift: true,
        extra: 'dropped',
      }),
    ).toEqual({
      success: true,
      data: {
        untitledSingle: 'option1',
        titledSingle: 'value1',
        legacyEnum: 'opt1',
        untitledMulti: ['option1', 'option2'],
        titledMulti: ['value2'],
        name: 'Ada',
        age: 36,
        gift: true,
      },
    });
  });

  it('refuses values outside the choices, of the wrong kind, and missing required fields', () => {
    const checked = validateFormAnswer(form, {
      titledSingle: 'First Option',
      untitledMulti: ['option9'],
      email: 'not an address',
      age: 1.5,
      gift: 'yes',
    });
    expect(checked.success).toBe(false);
    if (checked.success) return;
    expect(checked.issues.map((issue) => issue.path.join('.'))).toEqual([
      'titledSingle',
      'untitledMulti.0',
      'name',
      'email',
      'age',
      'gift',
    ]);
    expect(checked.issues[0]?.message).toBe('must be one of "value1", "value2"');
  });

  it('accepts an empty answer when nothing is required', () => {
    expect(validateFormAnswer({ fields: enumFields ?? {}, required: [] }, {})).toEqual({
      success: true,
      data: {},
    });
    expect(validateFormAnswer(form, 'yes').success).toBe(false);
  });
});
