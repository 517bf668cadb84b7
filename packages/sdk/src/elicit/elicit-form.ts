import type { ElicitRequest } from '../context/types.js';
import type { ElicitForm, FormField } from './form-field.js';

/**
 * The form a `type: 'form'` request asks for, or `undefined` for an approval. A request with
 * `fields` asks for those (none required unless named in `required`). Without them the fields come
 * from `args`, all required: a string, number or boolean is a field with that value as its
 * default, a non-empty list of strings a choice whose first entry is the default; other values
 * are left out.
 *
 * @example
 * elicitForm({ message: 'Pick', type: 'form', args: { tier: ['free', 'pro'] } });
 * // { fields: { tier: { type: 'string', title: 'tier', enum: ['free', 'pro'], default: 'free' } }, required: ['tier'] }
 */
export function elicitForm(request: ElicitRequest): ElicitForm | undefined {
  if (request.type !== 'form') return undefined;
  if (request.fields !== undefined) {
    return { fields: request.fields, required: [...(request.required ?? [])] };
  }
  const fields: Record<string, FormField> = {};
  for (const [key, value] of Object.entries(request.args ?? {})) {
    if (typeof value === 'string') fields[key] = { type: 'string', title: key, default: value };
    else if (typeof value === 'boolean')
      fields[key] = { type: 'boolean', title: key, default: value };
    else if (typeof value === 'number' && Number.isFinite(value)) {
      fields[key] = {
        type: Number.isInteger(value) ? 'integer' : 'number',
        title: key,
        default: value,
      };
    } else if (isChoice(value)) {
      fields[key] = { type: 'string', title: key, enum: value, default: value[0] };
    }
  }
  return { fields, required: Object.keys(fields) };
}

/** A non-empty list of strings: a choice, its first entry the default. */
function isChoice(value: unknown): value is [string, ...string[]] {
  return (
    Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')
  );
}
