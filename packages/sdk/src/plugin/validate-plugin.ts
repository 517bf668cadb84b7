import type { PluginProblem } from '../errors/plugin-definition-error.js';

const PLUGIN_ID = /^[a-z][a-z0-9_-]*$/;
const PROVIDER_ID = /^[a-z][a-z0-9_-]*$/;
const TOOL_PATH = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;
const PROVIDER_TYPES = new Set(['oauth2', 'api_key']);
// Short words title case leaves in lower case when they are not the first word.
const MINOR_WORDS = new Set([
  'a',
  'an',
  'and',
  'as',
  'at',
  'by',
  'for',
  'from',
  'in',
  'into',
  'of',
  'on',
  'or',
  'per',
  'the',
  'to',
  'via',
  'with',
]);

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

function isStringArray(value: unknown, optional = false): boolean {
  if (value === undefined) return optional;
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/**
 * The OAuth providers of the gateway's sign-in, which an `oauth2` entry without `oauth` may name
 * in `provider` (the server enables each when its `<ID>_CLIENT_ID` and `_SECRET` are set).
 */
export const SIGN_IN_PROVIDER_IDS: readonly string[] = Object.freeze([
  'github',
  'google',
  'microsoft',
  'discord',
  'gcp',
  'atlassian',
  'slack',
  'linear',
]);

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
/** Parameters of the authorization request the gateway sets itself. */
const RESERVED_AUTHORIZATION_PARAMS = new Set([
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'resource',
]);

/**
 * Whether `value` is an absolute URL an OAuth endpoint may have: https, or http on a loopback
 * address (a local test server), without credentials or a fragment.
 */
export function isOAuthEndpointUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.username !== '' || url.password !== '' || url.hash !== '') return false;
  if (url.protocol === 'https:') return true;
  return (
    url.protocol === 'http:' &&
    (url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost')
  );
}

function oauthConfigProblems(oauth: unknown): { field: string; message: string }[] {
  if (!isRecord(oauth))
    return [{ field: '', message: 'must be an object, e.g. { authorizationUrl, tokenUrl }' }];
  const problems: { field: string; message: string }[] = [];
  const url = 'must be an https URL (http only on 127.0.0.1, [::1] or localhost)';
  for (const key of ['issuer', 'authorizationUrl', 'tokenUrl'] as const) {
    if (oauth[key] !== undefined && !isOAuthEndpointUrl(oauth[key]))
      problems.push({ field: `.${key}`, message: url });
  }
  const endpoints = oauth.authorizationUrl !== undefined || oauth.tokenUrl !== undefined;
  if (
    oauth.issuer === undefined &&
    (oauth.authorizationUrl === undefined || oauth.tokenUrl === undefined)
  )
    problems.push({
      field: '',
      message: endpoints
        ? 'needs both authorizationUrl and tokenUrl (or an issuer to discover them)'
        : 'needs an issuer, or authorizationUrl and tokenUrl',
    });
  if (!isStringArray(oauth.scopes, true))
    problems.push({ field: '.scopes', message: 'must be an array of strings' });
  if (oauth.authorizationParams !== undefined) {
    const params = oauth.authorizationParams;
    if (!isRecord(params) || !Object.values(params).every((value) => typeof value === 'string'))
      problems.push({
        field: '.authorizationParams',
        message: 'must be an object of strings, e.g. { owner: "user" }',
      });
    else
      for (const key of Object.keys(params)) {
        if (RESERVED_AUTHORIZATION_PARAMS.has(key))
          problems.push({
            field: `.authorizationParams.${key}`,
            message: 'is set by the gateway itself',
          });
      }
  }
  for (const key of Object.keys(oauth)) {
    if (!['issuer', 'authorizationUrl', 'tokenUrl', 'scopes', 'authorizationParams'].includes(key))
      problems.push({
        field: `.${key}`,
        message:
          key === 'clientId' || key === 'clientSecret'
            ? 'never belongs in plugin code: the operator sets <ID>_CLIENT_ID and <ID>_CLIENT_SECRET'
            : 'is not an OAuth setting (issuer, authorizationUrl, tokenUrl, scopes, authorizationParams)',
      });
  }
  return problems;
}

/** Whether `name` is in Title Case: every word starts with a capital or digit, minor words aside. */
export function isTitleCase(name: string): boolean {
  const words = name.trim().split(/\s+/);
  return words.every((word, index) => {
    if (index > 0 && MINOR_WORDS.has(word)) return true;
    return /^[\p{Lu}\p{N}]/u.test(word);
  });
}

/** Whether `schema` is a zod 4 object schema, from any copy of zod. */
function isZodObjectSchema(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  const internals = schema._zod;
  return isRecord(internals) && isRecord(internals.def) && internals.def.type === 'object';
}

function isZodSchema(schema: unknown): boolean {
  return isRecord(schema) && isRecord(schema._zod);
}

/**
 * Checks a plugin definition and returns every problem found (an empty array when valid). Used by
 * `definePlugin()` and by `gateway test`; accepts anything, so JavaScript callers get the same
 * messages.
 *
 * @example
 * for (const problem of validatePlugin(plugin)) console.log(formatProblem(problem));
 */
export function validatePlugin(definition: unknown): PluginProblem[] {
  const problems: PluginProblem[] = [];
  if (!isRecord(definition)) {
    return [{ plugin: '<unnamed>', field: '(plugin)', message: 'expected an object' }];
  }
  const plugin = isNonEmptyString(definition.id) ? definition.id : '<unnamed>';
  const report = (field: string, message: string, tool?: string) =>
    problems.push(
      tool === undefined ? { plugin, field, message } : { plugin, tool, field, message },
    );

  if (!isNonEmptyString(definition.id)) report('id', 'is required');
  else if (!PLUGIN_ID.test(definition.id))
    report('id', 'must be lowercase letters, digits, _ or -, starting with a letter');
  if (!isNonEmptyString(definition.name)) report('name', 'is required');
  if (!isNonEmptyString(definition.description)) report('description', 'must not be empty');

  const providerIds = new Set<string>();
  const providers = definition.authProviders ?? [];
  if (!Array.isArray(providers)) report('authProviders', 'must be an array');
  else {
    for (const [index, provider] of (providers as unknown[]).entries()) {
      checkProvider(provider, `authProviders[${index}]`, providerIds, report);
    }
  }

  if (!Array.isArray(definition.tools)) {
    report('tools', 'must be an array of tools');
    return problems;
  }
  if (definition.tools.length === 0) report('tools', 'must hold at least one tool');
  const paths = new Set<string>();
  for (const [index, tool] of (definition.tools as unknown[]).entries()) {
    checkTool(tool, index, { paths, providerIds }, report);
  }
  return problems;
}

/** Reports a problem of a plugin, or of one of its tools. */
type Report = (field: string, message: string, tool?: string) => void;

/** Checks the auth provider at `field`, adding its id to `providerIds` when it is a new one. */
function checkProvider(
  provider: unknown,
  field: string,
  providerIds: Set<string>,
  report: Report,
): void {
  if (!isRecord(provider)) {
    report(field, 'expected an object');
    return;
  }
  if (!isNonEmptyString(provider.id)) report(`${field}.id`, 'is required');
  else if (!PROVIDER_ID.test(provider.id))
    report(`${field}.id`, 'must be lowercase letters, digits, _ or -, starting with a letter');
  else if (providerIds.has(provider.id))
    report(`${field}.id`, `duplicate provider id "${provider.id}"`);
  else providerIds.add(provider.id);
  if (typeof provider.type !== 'string' || !PROVIDER_TYPES.has(provider.type))
    report(`${field}.type`, 'must be "oauth2" or "api_key"');
  if (provider.oauth !== undefined) {
    if (provider.type !== 'oauth2') report(`${field}.oauth`, 'needs type: "oauth2"');
    if (provider.provider !== undefined && provider.provider !== provider.id)
      report(
        `${field}.provider`,
        `must be left out (or be "${String(provider.id)}") for the plugin's own OAuth provider`,
      );
    for (const problem of oauthConfigProblems(provider.oauth))
      report(`${field}.oauth${problem.field}`, problem.message);
    if (typeof provider.id === 'string' && SIGN_IN_PROVIDER_IDS.includes(provider.id))
      report(
        `${field}.id`,
        `"${provider.id}" is a sign-in provider of the gateway; give the plugin's own OAuth provider another id`,
      );
  } else if (provider.type === 'oauth2' && !isNonEmptyString(provider.provider))
    report(
      `${field}.provider`,
      'is required: a sign-in provider of the gateway (e.g. "github"), or declare the plugin\'s own with oauth: { authorizationUrl, tokenUrl }',
    );
  else if (provider.type === 'oauth2' && !SIGN_IN_PROVIDER_IDS.includes(String(provider.provider)))
    report(
      `${field}.provider`,
      `"${String(provider.provider)}" is not a sign-in provider of the gateway (${SIGN_IN_PROVIDER_IDS.join(', ')}); declare the plugin's own OAuth provider instead, e.g. { id: ${JSON.stringify(provider.id)}, type: 'oauth2', oauth: { authorizationUrl: 'https://…/authorize', tokenUrl: 'https://…/token' } }`,
    );
  else if (provider.provider !== undefined && !isNonEmptyString(provider.provider))
    report(`${field}.provider`, 'must be a non-empty string');
  if (!isStringArray(provider.scopes, true))
    report(`${field}.scopes`, 'must be an array of strings');
  if (provider.send !== undefined) {
    const send = provider.send;
    if (
      !isRecord(send) ||
      (send.header !== undefined &&
        (typeof send.header !== 'string' || !HEADER_NAME.test(send.header))) ||
      (send.scheme !== undefined &&
        (typeof send.scheme !== 'string' || !/^[A-Za-z0-9_-]*$/.test(send.scheme)))
    )
      report(
        `${field}.send`,
        'must be { header?: a header name, scheme?: a word }, e.g. { header: "x-api-key" }',
      );
  }
}

/** Checks the tool at `index`: its path (unique among `paths`), texts, schemas and provider. */
function checkTool(
  tool: unknown,
  index: number,
  seen: { paths: Set<string>; providerIds: ReadonlySet<string> },
  report: Report,
): void {
  const { paths, providerIds } = seen;
  if (!isRecord(tool)) {
    report(`tools[${index}]`, 'expected a tool from defineTool()');
    return;
  }
  const name = isNonEmptyString(tool.path) ? tool.path : `tools[${index}]`;
  const reportTool = (field: string, message: string) => report(field, message, name);

  if (!isNonEmptyString(tool.path)) reportTool('path', 'is required');
  else if (!TOOL_PATH.test(tool.path))
    reportTool(
      'path',
      'must be two or more dot-separated segments of [a-z0-9_], e.g. "notes.notes.create"',
    );
  else if (paths.has(tool.path)) reportTool('path', 'is used by another tool of this plugin');
  else paths.add(tool.path);

  if (!isNonEmptyString(tool.name)) reportTool('name', 'is required');
  else if (!isTitleCase(tool.name))
    reportTool('name', `must be in Title Case, e.g. "${toTitleCase(tool.name)}"`);
  if (!isNonEmptyString(tool.description)) reportTool('description', 'must not be empty');
  if (!isZodObjectSchema(tool.inputSchema))
    reportTool('inputSchema', 'must be a zod object schema, e.g. z.object({ ... })');
  if (tool.outputSchema !== undefined && !isZodSchema(tool.outputSchema))
    reportTool('outputSchema', 'must be a zod schema');
  if (typeof tool.handler !== 'function') reportTool('handler', 'must be a function');
  if (tool.approval !== undefined && typeof tool.approval !== 'function')
    reportTool(
      'approval',
      'must be a function of the input returning the message, e.g. (input) => "Delete the note?"',
    );
  for (const flag of ['destructive', 'serviceAccountAllowed'] as const) {
    if (tool[flag] !== undefined && typeof tool[flag] !== 'boolean')
      reportTool(flag, 'must be true or false');
  }
  if (tool.annotations !== undefined) {
    for (const problem of annotationProblems(tool.annotations, tool.destructive === true))
      reportTool(problem.field, problem.message);
  }
  if (tool.authProvider !== undefined) {
    if (typeof tool.authProvider !== 'string' || !providerIds.has(tool.authProvider))
      reportTool(
        'authProvider',
        `names no provider of this plugin (declared: ${[...providerIds].join(', ') || 'none'})`,
      );
  }
}

const ANNOTATION_HINTS = new Set(['readOnlyHint', 'idempotentHint', 'openWorldHint']);

function annotationProblems(
  annotations: unknown,
  destructive: boolean,
): { field: string; message: string }[] {
  if (!isRecord(annotations))
    return [{ field: 'annotations', message: 'must be an object of true/false hints' }];
  const problems: { field: string; message: string }[] = [];
  for (const [key, value] of Object.entries(annotations)) {
    const field = `annotations.${key}`;
    if (!ANNOTATION_HINTS.has(key))
      problems.push({
        field,
        message:
          key === 'destructiveHint' || key === 'title'
            ? `is set from the tool's ${key === 'title' ? 'name' : '`destructive`'}`
            : 'is not a hint a tool declares (readOnlyHint, idempotentHint, openWorldHint)',
      });
    else if (typeof value !== 'boolean') problems.push({ field, message: 'must be true or false' });
  }
  if (destructive && annotations.readOnlyHint === true)
    problems.push({
      field: 'annotations.readOnlyHint',
      message: 'contradicts `destructive: true` (a destructive tool is not read-only)',
    });
  return problems;
}

function toTitleCase(name: string): string {
  return name
    .trim()
    .split(/\s+/)
    .map((word, index) =>
      index > 0 && MINOR_WORDS.has(word) ? word : word.charAt(0).toUpperCase() + word.slice(1),
    )
    .join(' ');
}
