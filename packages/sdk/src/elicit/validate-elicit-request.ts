import { z } from 'zod';
import type { ElicitRequest } from '../context/types.js';
import type { SchemaIssue, ValidationResult } from '../tool/schema-issue.js';

const label = { title: z.string().optional(), description: z.string().optional() };
const count = z.number().int().nonnegative().optional();
const values = z
  .array(z.string())
  .min(1, 'needs at least one value')
  .refine((list) => new Set(list).size === list.length, 'values must be unique');
const options = z
  .array(z.strictObject({ const: z.string(), title: z.string() }))
  .min(1, 'needs at least one option')
  .refine(
    (list) => new Set(list.map((option) => option.const)).size === list.length,
    'option values (`const`) must be unique',
  );

const notAbove = (low: number | undefined, high: number | undefined) =>
  low === undefined || high === undefined || low <= high;

const textField = z
  .strictObject({
    type: z.literal('string'),
    ...label,
    minLength: count,
    maxLength: count,
    format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
    default: z.string().optional(),
  })
  .refine((field) => notAbove(field.minLength, field.maxLength), {
    message: 'minLength is more than maxLength',
    path: ['minLength'],
  });

const numberField = z
  .strictObject({
    type: z.enum(['number', 'integer']),
    ...label,
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    default: z.number().optional(),
  })
  .refine((field) => notAbove(field.minimum, field.maximum), {
    message: 'minimum is more than maximum',
    path: ['minimum'],
  })
  .refine(
    (field) =>
      field.default === undefined ||
      (notAbove(field.minimum, field.default) &&
        notAbove(field.default, field.maximum) &&
        (field.type === 'number' || Number.isInteger(field.default))),
    { message: 'default is not a value the field accepts', path: ['default'] },
  );

const booleanField = z.strictObject({
  type: z.literal('boolean'),
  ...label,
  default: z.boolean().optional(),
});

const choiceField = z
  .strictObject({
    type: z.literal('string'),
    ...label,
    enum: values,
    enumNames: z.array(z.string()).optional(),
    default: z.string().optional(),
  })
  .refine(
    (field) => field.enumNames === undefined || field.enumNames.length === field.enum.length,
    {
      message: 'enumNames needs one label for each value of enum',
      path: ['enumNames'],
    },
  )
  .refine((field) => field.default === undefined || field.enum.includes(field.default), {
    message: 'default is not one of the values',
    path: ['default'],
  });

const titledChoiceField = z
  .strictObject({
    type: z.literal('string'),
    ...label,
    oneOf: options,
    default: z.string().optional(),
  })
  .refine(
    (field) =>
      field.default === undefined || field.oneOf.some((option) => option.const === field.default),
    { message: 'default is not one of the option values', path: ['default'] },
  );

const multiChoiceBase = {
  type: z.literal('array'),
  ...label,
  minItems: count,
  maxItems: count,
  default: z.array(z.string()).optional(),
};

interface MultiChoiceShape {
  minItems?: number | undefined;
  maxItems?: number | undefined;
  default?: string[] | undefined;
}

function withMultiChoiceRules<F extends MultiChoiceShape>(
  schema: z.ZodType<F>,
  valuesOf: (field: F) => string[],
): z.ZodType<F> {
  return schema
    .refine((field) => notAbove(field.minItems, field.maxItems), {
      message: 'minItems is more than maxItems',
      path: ['minItems'],
    })
    .refine(
      (field) =>
        field.default === undefined ||
        field.default.every((value) => valuesOf(field).includes(value)),
      { message: 'default holds a value that is not among the choices', path: ['default'] },
    );
}

const multiChoiceField = withMultiChoiceRules(
  z.strictObject({
    ...multiChoiceBase,
    items: z.strictObject({ type: z.literal('string'), enum: values }),
  }),
  (field) => field.items.enum,
);
const titledMultiChoiceField = withMultiChoiceRules(
  z.strictObject({ ...multiChoiceBase, items: z.strictObject({ anyOf: options }) }),
  (field) => field.items.anyOf.map((option) => option.const),
);

const KINDS = 'string, number, integer, boolean or array';

/** The schema that checks `field`, chosen by its `type` and the keys it carries. */
function fieldSchemaFor(field: unknown): z.ZodType | undefined {
  if (typeof field !== 'object' || field === null) return undefined;
  const shape = field as Record<string, unknown>;
  switch (shape.type) {
    case 'string':
      if ('oneOf' in shape) return titledChoiceField;
      return 'enum' in shape ? choiceField : textField;
    case 'number':
    case 'integer':
      return numberField;
    case 'boolean':
      return booleanField;
    case 'array': {
      const items = shape.items;
      return typeof items === 'object' && items !== null && 'anyOf' in items
        ? titledMultiChoiceField
        : multiChoiceField;
    }
    default:
      return undefined;
  }
}

const requestSchema = z.object({
  toolPath: z.string().min(1).optional(),
  message: z.string(),
  args: z.record(z.string(), z.unknown()).optional(),
  type: z.enum(['approval', 'form', 'url']).optional(),
  url: z.string().optional(),
  fields: z.record(z.string().min(1, 'a field name is empty'), z.unknown()).optional(),
  required: z.array(z.string()).optional(),
});

/** The longest link a `type: 'url'` request may ask the user to open. */
const MAX_LINK_CHARS = 2048;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * What is wrong with a link a person is to be asked to open (URL-mode elicitation), if anything:
 * only `https:` (or `http:` to this machine, for a tool under development), without a user name or
 * password in it, and of at most 2,048 characters. The gateway applies the same rules to the
 * links upstream MCP servers ask for.
 *
 * @example
 * urlElicitationProblem('javascript:alert(1)'); // 'must be an https: address (http: only to localhost)'
 * urlElicitationProblem('https://pay.example.com/orders/1042'); // undefined
 */
export function urlElicitationProblem(url: string): string | undefined {
  const link = url.length <= MAX_LINK_CHARS ? URL.parse(url) : null;
  if (link === null) return `not a URL of at most ${MAX_LINK_CHARS} characters`;
  const secure =
    link.protocol === 'https:' || (link.protocol === 'http:' && LOOPBACK_HOSTS.has(link.hostname));
  if (!secure) return 'must be an https: address (http: only to localhost)';
  if (link.username !== '' || link.password !== '') {
    return 'must not carry a user name or password';
  }
  return undefined;
}

/**
 * Checks a `ctx.elicit()` request as the gateway does before asking anyone: the spec's fields,
 * a link's `url` ({@link urlElicitationProblem}), and a form's `fields` (each one of the
 * {@link FormField} shapes, defaults among the values the field accepts) and `required` (names of
 * its fields). Every issue is reported at once.
 *
 * @example
 * const checked = validateElicitRequest(request);
 * if (!checked.success) throw new TypeError(formatIssues(checked.issues));
 */
export function validateElicitRequest(request: unknown): ValidationResult<ElicitRequest> {
  const parsed = requestSchema.safeParse(request);
  if (!parsed.success) return { success: false, issues: parsed.error.issues };
  const { type, fields, required, url } = parsed.data;
  const issues: SchemaIssue[] = [];
  if (type === 'url') {
    const problem =
      url === undefined ? "type: 'url' needs the url to open" : urlElicitationProblem(url);
    if (problem !== undefined) issues.push({ path: ['url'], message: problem });
  } else if (url !== undefined) {
    issues.push({ path: ['url'], message: "url is for type: 'url' only" });
  }
  if (type !== 'form') {
    if (fields !== undefined) {
      issues.push({ path: ['fields'], message: "fields are for type: 'form' only" });
    }
    if (required !== undefined) {
      issues.push({ path: ['required'], message: "required is for type: 'form' only" });
    }
  }
  if (fields !== undefined) {
    if (Object.keys(fields).length === 0) {
      issues.push({ path: ['fields'], message: 'a form needs at least one field' });
    }
    for (const [name, field] of Object.entries(fields)) {
      const schema = fieldSchemaFor(field);
      if (schema === undefined) {
        issues.push({
          path: ['fields', name, 'type'],
          message: `a field is an object whose type is ${KINDS}`,
        });
        continue;
      }
      const checked = schema.safeParse(field);
      if (!checked.success) {
        for (const issue of checked.error.issues) {
          issues.push({ path: ['fields', name, ...issue.path], message: issue.message });
        }
      }
    }
  } else if (required !== undefined) {
    issues.push({ path: ['required'], message: 'required names fields; give `fields` too' });
  }
  required?.forEach((name, index) => {
    if (fields !== undefined && !Object.hasOwn(fields, name)) {
      issues.push({ path: ['required', index], message: `there is no field ${name}` });
    }
  });
  // Every field of the request was checked above, each form field against its own shape.
  return issues.length === 0
    ? { success: true, data: request as ElicitRequest }
    : { success: false, issues };
}
