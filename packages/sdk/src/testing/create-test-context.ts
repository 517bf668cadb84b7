import type {
  ElicitRequest,
  ElicitResult,
  GetTokenOptions,
  Logger,
  PluginContext,
} from '../context/types.js';
import { AuthRequiredError } from '../errors/auth-required-error.js';
import type { Role } from '../policy/index.js';

/** A line the test logger recorded. */
export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
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
   * The user's answer to approvals: a boolean, or a function of the request returning one or a
   * full `{ approved, data }` answer. Default `true`.
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
}

/** A PluginContext for tests, recording what the tool logged and asked. */
export interface TestContext extends PluginContext {
  /** Every line the tool logged, in order. */
  readonly logs: LogLine[];
  /** Every approval the tool requested, in order. */
  readonly elicitations: ElicitRequest[];
  /** Every `getToken` call, in order. */
  readonly tokenRequests: { provider: string; options?: GetTokenOptions }[];
  /** The execution id handlers receive and `elicit` reports. */
  readonly executionId: string;
}

/**
 * Creates a PluginContext for running a tool offline, with no server and no network.
 *
 * @example
 * const ctx = createTestContext({ tokens: { weather: 'test-key' }, approve: false });
 * await expect(runTool(deleteNote, { id: '1' }, ctx)).rejects.toThrow(ApprovalDeniedError);
 * expect(ctx.elicitations).toHaveLength(1);
 */
export function createTestContext(options: TestContextOptions = {}): TestContext {
  const logs: LogLine[] = [];
  const elicitations: ElicitRequest[] = [];
  const tokenRequests: TestContext['tokenRequests'] = [];
  const tokens = options.tokens ?? {};
  const executionId = options.executionId ?? 'test-execution';
  const approve = options.approve ?? true;

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
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    auth: {
      async getToken(provider, getOptions) {
        tokenRequests.push(
          getOptions === undefined ? { provider } : { provider, options: getOptions },
        );
        const token = Object.hasOwn(tokens, provider) ? tokens[provider] : undefined;
        if (token === undefined) throw new AuthRequiredError(provider);
        return token;
      },
    },
    async elicit(request) {
      elicitations.push(request);
      const answer = typeof approve === 'function' ? await approve(request) : approve;
      return typeof answer === 'boolean'
        ? { executionId, approved: answer }
        : { ...answer, executionId };
    },
  };
}
