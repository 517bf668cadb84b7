import { z } from 'zod';
import type { PluginContext } from '../context/types.js';
import { ToolError } from '../errors/tool-error.js';
import { formatIssues } from '../tool/schema-issue.js';
import type { FormField } from './form-field.js';

/** What {@link askForm} asks: the message, and the form as a zod object schema. */
export interface AskFormRequest<TSchema extends z.ZodObject> {
  message: string;
  /**
   * The form: each key a field, of a kind a form can ask for (`z.string()` with its checks and
   * `format`s, `z.number()`, `z.boolean()`, `z.enum()`, `z.array(z.enum())`), `.describe()` its
   * help line, `.meta({ title })` its label, `.default()` its default, `.optional()` for a field
   * the user may leave empty.
   */
  schema: TSchema;
}

/** The user's answer to {@link askForm}: the form's data, typed by its schema, when submitted. */
export type AskFormResult<TSchema extends z.ZodObject> =
  | { executionId: string; approved: true; data: z.output<TSchema> }
  | { executionId: string; approved: false; data?: undefined };

/**
 * Asks the user to fill in the form `schema` describes (`ctx.elicit({ type: 'form' })`, its
 * fields made from the schema) and returns their answer parsed by the schema: `data` is typed,
 * with defaults applied. Ask first, then act, as with any question.
 *
 * @throws TypeError when the schema holds a field no form can ask for (a bug in the tool).
 * @throws ToolError when the answer does not fit the schema (a check the form could not carry).
 * @example
 * const answer = await askForm(ctx, {
 *   message: `How should order ${input.id} ship?`,
 *   schema: z.object({ speed: z.enum(['std', 'exp']).default('std'), gift: z.boolean().default(false) }),
 * });
 * if (!answer.approved) throw new ToolError('Not shipped.');
 * answer.data.speed; // 'std' | 'exp'
 */
export async function askForm<TSchema extends z.ZodObject>(
  ctx: Pick<PluginContext, 'elicit'>,
  request: AskFormRequest<TSchema>,
): Promise<AskFormResult<TSchema>> {
  const json = z.toJSONSchema(request.schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const fields: Record<string, FormField> = {};
  for (const [name, property] of Object.entries(json.properties ?? {})) {
    const { $schema: _schema, ...field } = property;
    fields[name] = field as unknown as FormField;
  }
  const answer = await ctx.elicit({
    message: request.message,
    type: 'form',
    fields,
    required: json.required ?? [],
  });
  if (!answer.approved) return { executionId: answer.executionId, approved: false };
  const parsed = await request.schema.safeParseAsync(answer.data ?? {});
  if (!parsed.success) {
    throw new ToolError(
      `The answer to "${request.message}" does not fit its form:\n${formatIssues(parsed.error.issues)}`,
    );
  }
  return { executionId: answer.executionId, approved: true, data: parsed.data };
}
