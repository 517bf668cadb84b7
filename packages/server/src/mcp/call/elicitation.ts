import { type ElicitRequest, ToolError } from '@gateway/sdk';
import { type ElicitForm, elicitForm } from '@gateway/sdk/kernel';
import type {
  CreateMessageRequestParams,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  InputResponseView,
} from '@modelcontextprotocol/server';
import type { Answer } from '../request-state.js';

/** The key of the one question a round asks (`inputRequests` / `inputResponses`). */
export const ELICIT_KEY = 'gateway_elicit';

/**
 * The default of an approval's one field, `approve`. Accepting is how MCP says yes, so the box
 * comes ticked and an accept that leaves the field out (a client that shows no form) approves;
 * see docs/decisions.md, "An accepted approval".
 */
const APPROVE_DEFAULT = true;

/**
 * What a question asks for: a yes or no, the fields of a form, or that the user opens a link (an
 * upstream's URL-mode elicitation).
 */
export type QuestionKind = 'approval' | 'form' | 'url';

/** A link an upstream asks the user to open (URL-mode elicitation), checked by the relay. */
export interface UrlElicitation {
  message: string;
  url: string;
  elicitationId: string;
}

/** A question a handler asked through `ctx.elicit`, ready for the client. */
export interface Question {
  kind: QuestionKind;
  /** The handler's message, as recorded. */
  message: string;
  /** What the client shows and sends (`elicitation/create` params). */
  params: ElicitRequestFormParams | ElicitRequestURLParams;
  /** The form a `form` question asks the user to fill in. */
  form?: ElicitForm;
}

/** What a round of a 2026-07-28 call waits for: the user's answer, or the client's model's. */
export type PendingInput =
  | { kind: 'question'; question: Question }
  | { kind: 'sample'; params: CreateMessageRequestParams };

/**
 * The one input a call's round waits for, shared by `ctx.elicit` and `call.sample`: a round asks
 * one thing; whatever the handler asks next waits for the next round.
 */
export interface PendingSlot {
  current: PendingInput | undefined;
  /**
   * Questions and sampling requests this run of the call put to the user or the client on a
   * session or through approvals, at most {@link MAX_CALL_ROUNDS}.
   */
  asked: number;
}

/**
 * The most questions and sampling requests one call may put, however the client is reached: a
 * tool, or an upstream behind it, that asks without end must end, not fill the approvals list
 * or spend the client's model tokens (a 2026-07-28 call counts its rounds, see `askClient`).
 */
export const MAX_CALL_ROUNDS = 10;

/**
 * Counts one more question or sampling request of the call in `pending`.
 *
 * @throws ToolError past {@link MAX_CALL_ROUNDS}: the call ends as an error result.
 */
export function countQuestion(pending: PendingSlot, toolPath: string): void {
  if (pending.asked >= MAX_CALL_ROUNDS) {
    throw new ToolError(
      `${toolPath} kept asking questions (more than ${MAX_CALL_ROUNDS} in one call), so it was stopped. Call the tool again to start over; if it keeps happening, report it to whoever maintains the tool.`,
    );
  }
  pending.asked += 1;
}

/**
 * Thrown inside `ctx.elicit` or `call.sample` to stop a handler whose question must go back to a
 * 2026-07-28 client as `input_required`; the handler runs again, from the start, with the answer.
 */
export class InputNeeded extends Error {
  readonly input: PendingInput;

  constructor(input: PendingInput) {
    super('The tool asked a question; the client answers it and calls again');
    this.name = 'InputNeeded';
    this.input = input;
  }
}

/**
 * The elicitation for `request`: an approval asks for one boolean, `approve`; a form asks for its
 * fields (`elicitForm()`: the request's `fields`, or fields inferred from its `args`).
 *
 * @param shownArgs the arguments as the user sees them (secrets redacted).
 */
export function toQuestion(
  request: ElicitRequest,
  shownArgs: unknown,
): Question & { params: ElicitRequestFormParams } {
  const form = elicitForm(request);
  if (form !== undefined) {
    return {
      kind: 'form',
      message: request.message,
      form,
      params: {
        mode: 'form',
        message: request.message,
        requestedSchema: {
          type: 'object',
          properties: form.fields,
          ...(form.required.length === 0 ? {} : { required: form.required }),
        },
      },
    };
  }
  const details =
    shownArgs !== undefined && shownArgs !== null && Object.keys(shownArgs).length > 0
      ? `\n\nTool: ${request.toolPath}\nArguments: ${JSON.stringify(shownArgs)}`
      : `\n\nTool: ${request.toolPath}`;
  return {
    kind: 'approval',
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
            default: APPROVE_DEFAULT,
          },
        },
        required: ['approve'],
      },
    },
  };
}

/** The question that asks the user to open `asked.url`. */
export function urlQuestion(asked: UrlElicitation): Question {
  return {
    kind: 'url',
    message: `${asked.message}\n\n${asked.url}`,
    params: { mode: 'url', ...asked },
  };
}

/** The answer an elicitation result gives to a question of `kind`. */
export function toAnswer(kind: QuestionKind, response: InputResponseView, by: string): Answer {
  if (response.kind !== 'elicit') return { ok: false, decision: 'cancelled', by };
  if (response.action === 'decline') return { ok: false, decision: 'declined', by };
  if (response.action === 'cancel') return { ok: false, decision: 'cancelled', by };
  // Accepting a link says the user agreed to open it; what happens there is between the two.
  if (kind === 'url') return { ok: true, decision: 'approved', by };
  const content = response.content ?? {};
  if (kind === 'approval') {
    const approve = content.approve ?? APPROVE_DEFAULT;
    // Accept with the box unticked says yes and no at once: no is the safe reading, but the
    // client is told why, unlike a plain decline.
    return approve === true
      ? { ok: true, decision: 'approved', by }
      : { ok: false, decision: 'declined', by, reason: 'approve_unticked' };
  }
  return { ok: true, decision: 'approved', by, data: content };
}
