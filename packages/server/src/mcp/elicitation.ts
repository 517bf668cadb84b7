import type { ElicitRequest } from '@gateway/sdk';
import type { ElicitRequestFormParams, InputResponseView } from '@modelcontextprotocol/server';
import type { Answer } from './request-state.js';

/** The key of the one question a round asks (`inputRequests` / `inputResponses`). */
export const ELICIT_KEY = 'gateway_elicit';

/** What a question asks for: a yes or no, or the fields of a form. */
export type QuestionKind = 'approval' | 'form';

/** A question a handler asked through `ctx.elicit`, ready for the client. */
export interface Question {
  kind: QuestionKind;
  /** The handler's message, as recorded. */
  message: string;
  /** What the client shows and sends (`elicitation/create` params). */
  params: ElicitRequestFormParams;
}

/**
 * Thrown inside `ctx.elicit` to stop a handler whose question must go back to a 2026-07-28 client
 * as `input_required`; the handler runs again, from the start, with the answer.
 */
export class InputNeeded extends Error {
  readonly question: Question;

  constructor(question: Question) {
    super('The tool asked a question; the client answers it and calls again');
    this.name = 'InputNeeded';
    this.question = question;
  }
}

/**
 * The elicitation for `request`: an approval asks for one boolean, `approve`; a form asks for the
 * fields of `request.args`: strings, numbers and booleans with their values as defaults, and a
 * list of strings as a choice whose first entry is the default. Other values are left out.
 *
 * @param shownArgs the arguments as the user sees them (secrets redacted).
 */
export function toQuestion(request: ElicitRequest, shownArgs: unknown): Question {
  const kind: QuestionKind = request.type === 'form' ? 'form' : 'approval';
  if (kind === 'form') {
    return {
      kind,
      message: request.message,
      params: { mode: 'form', message: request.message, requestedSchema: formSchema(request.args) },
    };
  }
  const details =
    shownArgs !== undefined && shownArgs !== null && Object.keys(shownArgs).length > 0
      ? `\n\nTool: ${request.toolPath}\nArguments: ${JSON.stringify(shownArgs)}`
      : `\n\nTool: ${request.toolPath}`;
  return {
    kind,
    message: request.message,
    params: {
      mode: 'form',
      message: `${request.message}${details}`,
      requestedSchema: {
        type: 'object',
        properties: {
          approve: {
            type: 'boolean',
            title: 'Approve',
            description: `Let ${request.toolPath} go ahead`,
            default: false,
          },
        },
        required: ['approve'],
      },
    },
  };
}

type FormSchema = ElicitRequestFormParams['requestedSchema'];
type FormField = FormSchema['properties'][string];

function formSchema(args: Record<string, unknown> | undefined): FormSchema {
  const properties: Record<string, FormField> = {};
  for (const [key, value] of Object.entries(args ?? {})) {
    if (typeof value === 'string') properties[key] = { type: 'string', title: key, default: value };
    else if (typeof value === 'boolean') {
      properties[key] = { type: 'boolean', title: key, default: value };
    } else if (typeof value === 'number') {
      properties[key] = {
        type: Number.isInteger(value) ? 'integer' : 'number',
        title: key,
        default: value,
      };
    } else if (isChoice(value)) {
      properties[key] = { type: 'string', title: key, enum: value, default: value[0] };
    }
  }
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** A non-empty list of strings: a choice, its first entry the default. */
function isChoice(value: unknown): value is [string, ...string[]] {
  return (
    Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')
  );
}

/** The answer an elicitation result gives to a question of `kind`. */
export function toAnswer(kind: QuestionKind, response: InputResponseView, by: string): Answer {
  if (response.kind !== 'elicit') return { ok: false, decision: 'cancelled', by };
  if (response.action === 'decline') return { ok: false, decision: 'declined', by };
  if (response.action === 'cancel') return { ok: false, decision: 'cancelled', by };
  const content = response.content ?? {};
  if (kind === 'approval') {
    return content.approve === true
      ? { ok: true, decision: 'approved', by }
      : { ok: false, decision: 'declined', by };
  }
  return { ok: true, decision: 'approved', by, data: content };
}
