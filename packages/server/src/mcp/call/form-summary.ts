import type { FormField } from '@gateway/sdk';
import type { ElicitForm } from '@gateway/sdk/kernel';

/**
 * The answer a form gets when it is approved outside the AI client (web app, `gateway
 * approvals`): each field's default. Fields without one are left out.
 */
export function formDefaults(form: ElicitForm): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(form.fields)) {
    if (field.default !== undefined) data[name] = field.default;
  }
  return data;
}

/**
 * A form in words, for people deciding a pending approval outside their AI client: each field
 * with its label, its choices, its default and whether it is required, then what approving there
 * does. Two lines, whatever the form.
 *
 * @example
 * describeForm({ fields: { speed: { type: 'string', title: 'Speed', oneOf: [{ const: 's', title: 'Standard' }], default: 's' } }, required: ['speed'] });
 * // 'The tool asks for: Speed (one of Standard; default Standard; required).\nApproving here answers with the defaults.'
 */
export function describeForm(form: ElicitForm): string {
  const required = new Set(form.required);
  const entries = Object.entries(form.fields);
  const fields = entries.map(([name, field]) => {
    const facts = [describeKind(field)];
    if (field.default !== undefined) facts.push(`default ${describeValue(field, field.default)}`);
    if (required.has(name)) facts.push('required');
    return `${field.title ?? name} (${facts.join('; ')})`;
  });
  const unanswerable = entries
    .filter(([name, field]) => required.has(name) && field.default === undefined)
    .map(([name, field]) => field.title ?? name);
  const outcome =
    unanswerable.length === 0
      ? 'Approving here answers with the defaults.'
      : `Approving here cannot fill in ${unanswerable.join(', ')}: answer from an AI client that shows forms, or deny.`;
  return `The tool asks for: ${fields.join(', ')}.\n${outcome}`;
}

interface Option {
  value: string;
  label: string;
}

function optionsOf(field: FormField): Option[] | undefined {
  if ('oneOf' in field) return field.oneOf.map((o) => ({ value: o.const, label: o.title }));
  if ('enum' in field) {
    return field.enum.map((value, i) => ({ value, label: field.enumNames?.[i] ?? value }));
  }
  if (field.type !== 'array') return undefined;
  const { items } = field;
  return 'enum' in items
    ? items.enum.map((value) => ({ value, label: value }))
    : items.anyOf.map((o) => ({ value: o.const, label: o.title }));
}

function describeKind(field: FormField): string {
  const options = optionsOf(field);
  if (options !== undefined) {
    const labels = options.map((option) => option.label).join(', ');
    return `${field.type === 'array' ? 'any of' : 'one of'} ${labels}`;
  }
  switch (field.type) {
    case 'boolean':
      return 'yes or no';
    case 'integer':
      return 'a whole number';
    case 'number':
      return 'a number';
    default:
      return 'format' in field && field.format !== undefined ? FORMATS[field.format] : 'text';
  }
}

const FORMATS = {
  email: 'an email address',
  uri: 'a link',
  date: 'a date',
  'date-time': 'a date and time',
} as const;

function describeValue(field: FormField, value: unknown): string {
  const options = optionsOf(field);
  const show = (item: unknown) =>
    options?.find((option) => option.value === item)?.label ?? JSON.stringify(item);
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(show).join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return show(value);
}
