import { z } from 'zod';
import type { ValidationResult } from '../tool/schema-issue.js';
import type { ElicitForm, FormField, FormValue } from './form-field.js';

function oneOf(choices: string[]): z.ZodType<string> {
  return z.string().refine((value) => choices.includes(value), {
    message: `must be one of ${choices.map((choice) => JSON.stringify(choice)).join(', ')}`,
  });
}

const constOf = (option: { const: string }) => option.const;

function valueSchema(field: FormField): z.ZodType<FormValue> {
  switch (field.type) {
    case 'boolean':
      return z.boolean();
    case 'number':
    case 'integer': {
      let schema = field.type === 'integer' ? z.number().int() : z.number();
      if (field.minimum !== undefined) schema = schema.min(field.minimum);
      if (field.maximum !== undefined) schema = schema.max(field.maximum);
      return schema;
    }
    case 'array': {
      const { items } = field;
      let schema = z.array(oneOf('enum' in items ? items.enum : items.anyOf.map(constOf)));
      if (field.minItems !== undefined) schema = schema.min(field.minItems);
      if (field.maxItems !== undefined) schema = schema.max(field.maxItems);
      return schema;
    }
    case 'string': {
      if ('enum' in field) return oneOf(field.enum);
      if ('oneOf' in field) return oneOf(field.oneOf.map(constOf));
      let schema = z.string();
      if (field.minLength !== undefined) schema = schema.min(field.minLength);
      if (field.maxLength !== undefined) schema = schema.max(field.maxLength);
      if (field.format === 'email') return schema.pipe(z.email());
      if (field.format === 'uri') return schema.pipe(z.url());
      if (field.format === 'date') return schema.pipe(z.iso.date());
      if (field.format === 'date-time') return schema.pipe(z.iso.datetime({ offset: true }));
      return schema;
    }
  }
}

/**
 * Checks a user's answer to `form` as the gateway does before a tool sees it: keeps only the
 * form's fields, each value of its field's kind, within its limits and among its choices, and
 * every required field present. Every issue is reported at once.
 *
 * @example
 * const checked = validateFormAnswer(form, content);
 * if (checked.success) use(checked.data);
 */
export function validateFormAnswer(
  form: ElicitForm,
  content: unknown,
): ValidationResult<Record<string, FormValue>> {
  const required = new Set(form.required);
  const shape: Record<string, z.ZodType<FormValue | undefined>> = {};
  for (const [name, field] of Object.entries(form.fields)) {
    shape[name] = required.has(name) ? valueSchema(field) : valueSchema(field).optional();
  }
  const parsed = z.object(shape).safeParse(content);
  if (!parsed.success) return { success: false, issues: parsed.error.issues };
  const data: Record<string, FormValue> = {};
  for (const [name, value] of Object.entries(parsed.data)) {
    if (value !== undefined) data[name] = value;
  }
  return { success: true, data };
}
