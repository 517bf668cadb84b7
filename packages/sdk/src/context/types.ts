import type { FormField } from '../elicit/form-field.js';
import type { Role } from '../policy/index.js';

/** Options of `ctx.auth.getToken()`. */
export interface GetTokenOptions {
  /**
   * The instance name of the connection to use when the user keeps several for one provider
   * (multi-instance tools). Without it the most recently updated top-level connection serves.
   */
  instance?: string;
}

/**
 * Vends the credential a tool needs at call time. The gateway checks, in order: the user's own
 * connection, a team connection, the user's OAuth account (refreshed when expired), then the
 * server's `<UPPER>_API_KEY` environment variable.
 *
 * `TProvider` is the provider ids `getToken()` takes: those of the plugin for a tool made with
 * `defineToolFor(authProviders)`, any string otherwise.
 */
export interface AuthResolver<TProvider extends string = string> {
  /**
   * Returns a bearer token or API key for `provider`, an id from the plugin's `authProviders`.
   * A tool gets credentials only for the providers its plugin declares.
   *
   * @throws UndeclaredProviderError when the plugin does not declare `provider` in
   *   `authProviders` (nothing is looked up for it).
   * @throws AuthRequiredError when no source yields a credential.
   * @example
   * const token = await ctx.auth.getToken('github');
   * await fetch(url, { headers: { authorization: `Bearer ${token}` } });
   */
  getToken(provider: TProvider, options?: GetTokenOptions): Promise<string>;
  /**
   * `fetch()` with `provider`'s credential added the way the provider's `send` says (default
   * `Authorization: Bearer <token>`), `init.instance` choosing a named connection. The upstream's
   * 401 becomes `AuthRequiredError` (the user reconnects), 403 and 404 a `ToolError` saying so,
   * 429 and 503 an `UpstreamUnavailableError` with its `Retry-After`; any other answer is
   * returned. The credential never appears in an error.
   *
   * @example
   * const response = await ctx.auth.fetch('github', 'https://api.github.com/user');
   * const user = (await response.json()) as { login: string };
   */
  fetch(provider: TProvider, url: string | URL, init?: AuthFetchInit): Promise<Response>;
}

/** `RequestInit` of `ctx.auth.fetch()`, with the connection `instance` to use. */
export interface AuthFetchInit extends RequestInit {
  instance?: string;
}

/**
 * What a tool asks the user to approve (or fill in).
 *
 * @example
 * // A yes-or-no approval.
 * await ctx.elicit({ message: 'Delete "Groceries"?', args: input });
 * // A form with the fields spelled out.
 * const answer = await ctx.elicit({
 *   message: 'How should the order ship?',
 *   type: 'form',
 *   fields: {
 *     speed: { type: 'string', title: 'Speed', oneOf: [{ const: 'std', title: 'Standard' }, { const: 'exp', title: 'Express' }], default: 'std' },
 *     gift: { type: 'boolean', title: 'Gift wrap', default: false },
 *   },
 *   required: ['speed'],
 * });
 * // A link to open in the browser, for what must not pass through the AI client (a payment, a
 * // third party's sign-in).
 * await ctx.elicit({
 *   message: 'Pay for order 1042',
 *   type: 'url',
 *   url: 'https://pay.example.com/orders/1042',
 * });
 */
export interface ElicitRequest {
  /**
   * Not needed: the gateway (and `runTool()`) know which tool asks, and fill it in. Accepted for
   * plugins written before it was optional.
   */
  toolPath?: string;
  /** A human-readable description of what will happen. */
  message: string;
  /**
   * The arguments being approved, shown to the user. A form without `fields` asks for these:
   * strings, numbers and booleans with their values as defaults, a list of strings as a choice
   * whose first entry is the default.
   */
  args?: Record<string, unknown>;
  /**
   * `approval` (the default) asks yes or no; `form` asks the user for data; `url` asks the user
   * to open `url` in their browser (MCP URL-mode elicitation).
   */
  type?: 'approval' | 'form' | 'url';
  /**
   * The page a `type: 'url'` request asks the user to open: `https:` (or `http:` to localhost),
   * without a user name or password, at most 2,048 characters. `approved` then says the user
   * agreed to open it, not what they did there: check the outcome yourself (the order is paid,
   * the account linked) before going on.
   */
  url?: string;
  /**
   * The fields of a form (`type: 'form'` only), by name: text, numbers, yes or no, a choice of
   * one or of several values, with or without labels for the values. Without it the form's
   * fields come from `args`.
   */
  fields?: Record<string, FormField>;
  /** The names of the `fields` the user must fill in. Default: none. */
  required?: string[];
}

/** The user's answer. `approved` is false on decline, cancel and timeout. */
export interface ElicitResult {
  /** The id of the execution record of this tool call. */
  executionId: string;
  approved: boolean;
  /**
   * A form's answer, checked against the form: only its fields, each value of the field's kind
   * and among its choices, every required field present.
   */
  data?: Record<string, unknown>;
}

/**
 * Asks the user to approve an action. Ask first, then act: when a client answers by retrying the
 * call, the handler runs again from the start and `elicit` returns the answer at once.
 *
 * @throws TypeError when the request is malformed (see `validateElicitRequest()`).
 */
export type ElicitFn = (request: ElicitRequest) => Promise<ElicitResult>;

/** Structured logger; lines carry the tool path, execution id and user. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * What a handler receives about the caller (argument `ctx`). `TProvider`: the provider ids
 * `ctx.auth.getToken()` takes (see {@link AuthResolver}).
 */
export interface PluginContext<TProvider extends string = string> {
  /** The authenticated user's id. */
  userId: string;
  /** The user's role. */
  role: Role;
  auth: AuthResolver<TProvider>;
  elicit: ElicitFn;
  logger: Logger;
}

/** What a message of a sampling conversation holds: text, or an image or audio clip (base64). */
export type SampleContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string };

/** One message of a sampling conversation. */
export interface SampleMessage {
  role: 'user' | 'assistant';
  content: SampleContent;
}

/**
 * What a tool asks the AI client's model (`call.sample()`, MCP `sampling/createMessage`). The
 * client chooses the model, may show the request to the user first, and may refuse.
 *
 * @example
 * const reply = await call.sample({
 *   messages: [{ role: 'user', content: { type: 'text', text: `Summarise:\n${text}` } }],
 *   maxTokens: 200,
 * });
 */
export interface SampleRequest {
  /** The conversation so far; the model answers it. At least one message. */
  messages: SampleMessage[];
  /** The most tokens the model may produce (a positive integer). */
  maxTokens: number;
  /** A system prompt the client may use. */
  systemPrompt?: string;
  /** Sampling temperature, when the tool cares. */
  temperature?: number;
  /** Sequences that end the answer. */
  stopSequences?: string[];
  /** Hints for the client's choice of model; every priority is between 0 and 1. */
  modelPreferences?: {
    hints?: { name?: string }[];
    costPriority?: number;
    speedPriority?: number;
    intelligencePriority?: number;
  };
}

/** The model's answer to a {@link SampleRequest}. Untrusted input: see `ToolCall.sample`. */
export interface SampleResult {
  role: 'user' | 'assistant';
  content: SampleContent;
  /** The model that answered, as the client names it. */
  model: string;
  /** Why the model stopped (`endTurn`, `stopSequence`, `maxTokens` or the client's own). */
  stopReason?: string;
}

/** Per-call details a handler may use beside its context (third handler argument). */
export interface ToolCall {
  /** Aborted when the caller goes away or the call's time limit passes. */
  signal: AbortSignal;
  /** The id of this call's execution record. */
  executionId: string;
  /**
   * Tells the client how far the call has got (MCP `notifications/progress`), when it asked to
   * hear (sent a `progressToken`); otherwise does nothing. `progress` must increase from one
   * report to the next (a report that does not is dropped); give `total` when it is known. Never
   * throws and never waits.
   *
   * @example
   * for (const [i, file] of files.entries()) {
   *   call.reportProgress(i, files.length, `Copying ${file.name}`);
   *   await copy(file, { signal: call.signal });
   * }
   * call.reportProgress(files.length, files.length, 'Done');
   */
  reportProgress(progress: number, total?: number, message?: string): void;
  /**
   * Asks the AI client's model for a completion (MCP sampling), for tools that need a model
   * without holding a provider key. Only clients that offer sampling can answer: a 2025 client
   * on a session that declared `sampling`, or a 2026-07-28 client that declared it (the call then
   * ends with `input_required` and the handler runs again from the start, getting the answer at
   * once: ask before acting). Waiting for the answer does not count against the call's time
   * limit; the approval timeout bounds it.
   *
   * The answer is text the user's model wrote, which the tool's input (and anything the model
   * read) can steer: treat it as untrusted input, never as an instruction to act on.
   *
   * @throws ToolError when the client does not offer sampling, refuses, or does not answer in
   *   time; TypeError when the request is malformed (a bug in the tool).
   * @example
   * const reply = await call.sample({
   *   messages: [{ role: 'user', content: { type: 'text', text: 'Name a colour.' } }],
   *   maxTokens: 20,
   * });
   * if (reply.content.type === 'text') return reply.content.text;
   */
  sample(request: SampleRequest): Promise<SampleResult>;
}
