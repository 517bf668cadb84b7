import { createAuthResolver } from '../auth/auth-fetch.js';
import type {
  ElicitRequest,
  ElicitResult,
  GetTokenOptions,
  Logger,
  PluginContext,
  SampleRequest,
  SampleResult,
} from '../context/types.js';
import { elicitForm } from '../elicit/elicit-form.js';
import type { ElicitForm } from '../elicit/form-field.js';
import { validateElicitRequest } from '../elicit/validate-elicit-request.js';
import { validateFormAnswer } from '../elicit/validate-form-answer.js';
import { AuthRequiredError } from '../errors/auth-required-error.js';
import { ToolError } from '../errors/tool-error.js';
import { UndeclaredProviderError } from '../errors/undeclared-provider-error.js';
import type { AuthProvider } from '../plugin/types.js';
import type { Role } from '../policy/index.js';
import { validateSampleRequest, validateSampleResult } from '../sampling/validate-sample.js';
import { formatIssues } from '../tool/schema-issue.js';

/** A line the test logger recorded. */
export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

/** A progress report a tool made (`call.reportProgress()`), as made. */
export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

/** Options of `createTestContext()`. */
export interface TestContextOptions {
  /** Default `test-user`. */
  userId?: string;
  /** Default a `member` role allowing every tool (`**`). */
  role?: Role;
  /**
   * Tokens by provider id. A provider missing here makes `getToken` throw `AuthRequiredError`,
   * as the gateway does when nothing is connected.
   */
  tokens?: Record<string, string>;
  /**
   * The plugin the tool belongs to (your `definePlugin()` result). Given, `getToken` refuses a
   * provider the plugin does not declare in `authProviders` with `UndeclaredProviderError`, as
   * the gateway does, even when `tokens` has one for it. Without it every provider is allowed.
   */
  plugin?: { id: string; authProviders?: readonly AuthProvider[] | undefined };
  /**
   * The user's answer to approvals: a boolean, or a function of the request returning one or a
   * full `{ approved, data }` answer. Default `true`. An approved form without `data` is answered
   * with its fields' defaults; a form's data is checked against the form, as the gateway does.
   */
  approve?:
    | boolean
    | ((
        request: ElicitRequest,
      ) =>
        | boolean
        | Omit<ElicitResult, 'executionId'>
        | Promise<boolean | Omit<ElicitResult, 'executionId'>>);
  /** The execution id `elicit` reports. Default `test-execution`. */
  executionId?: string;
  /**
   * The AI client's model, answering `call.sample()`: a text reply, a full `SampleResult`, or a
   * function of the request returning either. Default: none, so `call.sample()` throws a
   * `ToolError`, as the gateway does for a client that does not offer sampling.
   */
  sample?:
    | string
    | SampleResult
    | ((request: SampleRequest) => string | SampleResult | Promise<string | SampleResult>);
}

/** A PluginContext for tests, recording what the tool logged and asked. */
export interface TestContext extends PluginContext {
  /** Every line the tool logged, in order. */
  readonly logs: LogLine[];
  /** Every approval the tool requested, in order. */
  readonly elicitations: ElicitRequest[];
  /** Every `getToken` call, in order. */
  readonly tokenRequests: { provider: string; options?: GetTokenOptions }[];
  /** Every progress report, in order (`runTool` passes the handler a `reportProgress` that records here). */
  readonly progress: ProgressReport[];
  /** The execution id handlers receive and `elicit` reports. */
  readonly executionId: string;
  /** Every sampling request the tool made (`call.sample()`), in order. */
  readonly samples: SampleRequest[];
  /**
   * Answers a sampling request as the `sample` option says; `runTool` passes it to the handler
   * as `call.sample`. Not part of the handler's context.
   *
   * @throws ToolError when no `sample` answer is set (a client without sampling); TypeError when
   *   the request or the test's answer is malformed.
   */
  answerSample(request: SampleRequest): Promise<SampleResult>;
}

/**
 * Creates a PluginContext for running a tool offline, with no server and no network.
 *
 * @example
 * const ctx = createTestContext({ plugin, tokens: { weather: 'test-key' }, approve: false });
 * await expect(runTool(deleteNote, { id: '1' }, ctx)).rejects.toThrow(ApprovalDeniedError);
 * expect(ctx.elicitations).toHaveLength(1);
 * @throws UndeclaredProviderError from `auth.getToken` for a provider `plugin` does not declare;
 *   AuthRequiredError for one `tokens` has no token for.
 * @throws TypeError from `elicit` when the tool's request is malformed, or when an approved form's
 *   answer does not fit the form (a bug in the test).
 */
export function createTestContext(options: TestContextOptions = {}): TestContext {
  const logs: LogLine[] = [];
  const elicitations: ElicitRequest[] = [];
  const tokenRequests: TestContext['tokenRequests'] = [];
  const progress: ProgressReport[] = [];
  const tokens = options.tokens ?? {};
  const executionId = options.executionId ?? 'test-execution';
  const approve = options.approve ?? true;
  const samples: SampleRequest[] = [];
  const sample = options.sample;
  const plugin = options.plugin;

  const log =
    (level: LogLine['level']): Logger['info'] =>
    (message, fields) => {
      logs.push(fields === undefined ? { level, message } : { level, message, fields });
    };

  return {
    userId: options.userId ?? 'test-user',
    role: options.role ?? { id: 'member', name: 'Member', patterns: ['**'] },
    executionId,
    logs,
    elicitations,
    tokenRequests,
    progress,
    samples,
    answerSample: sampleAnswerer(sample, samples),
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    auth: createAuthResolver({
      providers: plugin?.authProviders ?? [],
      getToken: tokenGetter(plugin, tokens, tokenRequests),
    }),
    async elicit(request) {
      const checked = validateElicitRequest(request);
      if (!checked.success) {
        throw new TypeError(`Invalid ctx.elicit() request:\n${formatIssues(checked.issues)}`);
      }
      elicitations.push(request);
      const answer = typeof approve === 'function' ? await approve(request) : approve;
      const result: ElicitResult =
        typeof answer === 'boolean'
          ? { executionId, approved: answer }
          : { ...answer, executionId };
      const form = elicitForm(request);
      if (form === undefined || !result.approved) return result;
      return { ...result, data: checkAnswer(request, form, result.data ?? defaultsOf(form)) };
    },
  };
}

/** `answerSample`: checks the request, records it in `samples`, and answers as `sample` says. */
function sampleAnswerer(
  sample: TestContextOptions['sample'],
  samples: SampleRequest[],
): TestContext['answerSample'] {
  return async (request) => {
    const checked = validateSampleRequest(request);
    if (!checked.success) {
      throw new TypeError(`Invalid call.sample() request:\n${formatIssues(checked.issues)}`);
    }
    samples.push(request);
    if (sample === undefined) {
      throw new ToolError(
        'The AI client does not offer sampling (createTestContext({ sample }) answers for one that does).',
      );
    }
    const answer = typeof sample === 'function' ? await sample(request) : sample;
    const result: unknown =
      typeof answer === 'string'
        ? { role: 'assistant', content: { type: 'text', text: answer }, model: 'test-model' }
        : answer;
    const read = validateSampleResult(result);
    if (!read.success) {
      throw new TypeError(
        `The test's sampling answer is not one the gateway would pass on:\n${formatIssues(read.issues)}`,
      );
    }
    return read.data;
  };
}

/**
 * `auth.getToken`: records the request in `tokenRequests`, and answers from `tokens` for a
 * provider `plugin` declares.
 */
function tokenGetter(
  plugin: TestContextOptions['plugin'],
  tokens: Readonly<Record<string, string>>,
  tokenRequests: TestContext['tokenRequests'],
) {
  return async (provider: string, getOptions?: GetTokenOptions): Promise<string> => {
    tokenRequests.push(
      getOptions === undefined || Object.keys(getOptions).length === 0
        ? { provider }
        : { provider, options: getOptions },
    );
    const declared = plugin?.authProviders?.some((entry) => entry.id === provider) ?? true;
    if (plugin !== undefined && !declared) throw new UndeclaredProviderError(plugin.id, provider);
    const token = Object.hasOwn(tokens, provider) ? tokens[provider] : undefined;
    if (token === undefined) throw new AuthRequiredError(provider);
    return token;
  };
}

function defaultsOf(form: ElicitForm): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(form.fields)) {
    if (field.default !== undefined) data[name] = field.default;
  }
  return data;
}

function checkAnswer(
  request: ElicitRequest,
  form: ElicitForm,
  data: Record<string, unknown>,
): Record<string, unknown> {
  const checked = validateFormAnswer(form, data);
  if (checked.success) return checked.data;
  throw new TypeError(
    `The test's answer to the form of ${request.toolPath} does not fit it (the gateway would not pass it on); ` +
      `answer with approve: () => ({ approved: true, data: { ... } }):\n${formatIssues(checked.issues)}`,
  );
}
