import { Refusal } from '../errors/refusal.js';
import type { AuthenticatedPrincipal } from '../identity/index.js';
import { serviceAccountRole } from '../identity/service-account-store.js';
import { endpointScopeOf, findUserEndpoint } from '../mcp-endpoints/index.js';
import type { MountedTool } from '../registry/index.js';
import type { GatewayServices } from '../services.js';
import { PluginTool } from '../tool-sources/index.js';
import { serviceAccountCredential, userCredential } from './credential.js';
import { firstMatch } from './match.js';
import type { Explanation } from './schemas.js';

/** What explain reads of the gateway's services. */
export type ExplainServices = Pick<
  GatewayServices,
  'database' | 'env' | 'plugins' | 'policy' | 'auth' | 'upstreams' | 'upstreamOAuth'
>;

/** Whose call to explain. */
export type ExplainSubject =
  | { kind: 'user'; id: string; endpointId?: string | undefined }
  | { kind: 'service_account'; id: string };

function approvalOf(services: ExplainServices, tool: MountedTool): Explanation['approval'] {
  const status = tool.source.kind === 'mcp' ? services.upstreams.status(tool.sourceId) : undefined;
  if (status === undefined) {
    if (tool.source instanceof PluginTool && tool.source.tool.approval !== undefined) {
      return {
        asks: 'yes',
        why: 'The plugin tool declares approval: the gateway asks before every call, with the message the tool builds from its input',
      };
    }
    return {
      asks: 'tool',
      why: tool.destructive
        ? 'A plugin tool declared destructive: its handler asks when it calls requireApproval; the gateway adds no question of its own'
        : 'A plugin tool not declared destructive: the gateway asks nothing; its handler may still call requireApproval',
    };
  }
  const name = status.mappedNames[tool.path] ?? tool.path.slice(tool.namespace.length + 1);
  if (status.approvalRequired.includes(name)) {
    return { asks: 'yes', why: `The source lists "${name}" among the tools that always ask` };
  }
  if (status.approval === 'all') return { asks: 'yes', why: 'The source asks before every tool' };
  if (status.approval === 'listed') {
    return { asks: 'no', why: 'The source asks only for the tools it lists, and not this one' };
  }
  return tool.destructive
    ? {
        asks: 'yes',
        why: "The upstream's annotations do not say it is read-only or harmless (approval mode `hints`)",
      }
    : { asks: 'no', why: "The upstream's annotations say it is read-only or not destructive" };
}

function sourceOf(services: ExplainServices, tool: MountedTool): Explanation['source'] {
  const status = tool.source.kind === 'mcp' ? services.upstreams.status(tool.sourceId) : undefined;
  if (status === undefined) {
    return { id: tool.sourceId, healthy: true, detail: 'A plugin loaded in the gateway' };
  }
  const healthy = status.health.state === 'ok';
  return {
    id: tool.sourceId,
    healthy,
    detail: healthy
      ? 'The upstream answers'
      : (status.health.lastError ?? 'The upstream is degraded'),
  };
}

/** The subject's role resolution, and the endpoint narrowing it (when one is named). */
async function resolveSubject(services: ExplainServices, subject: ExplainSubject, path: string) {
  const { db } = services.database;
  let resolution: Awaited<ReturnType<typeof services.policy.resolveForUser>>;
  if (subject.kind === 'user') {
    resolution = await services.policy.resolveForUser(subject.id);
  } else {
    const roleId = await serviceAccountRole(db, subject.id);
    if (roleId === undefined) throw new Refusal('not_found', 'No such service account');
    resolution = await services.policy.resolveForServiceAccount(roleId);
  }
  let endpoint: Explanation['endpoint'] = null;
  let endpointPatterns: readonly string[] | null = null;
  if (subject.kind === 'user' && subject.endpointId !== undefined) {
    const row = await findUserEndpoint(db, subject.endpointId, subject.id);
    if (row === undefined) throw new Refusal('not_found', 'No such MCP endpoint of this user');
    const scope = endpointScopeOf(row);
    endpointPatterns = scope.tools;
    const pattern = scope.tools === null ? null : firstMatch(scope.tools, path);
    endpoint = {
      id: row.id,
      admits: scope.tools === null || pattern !== null,
      pattern,
      mode: scope.mode,
    };
  }
  return { resolution, endpoint, endpointPatterns };
}

/** Why the role (and the endpoint) admit the tool or not, in sentences. */
function policyReasons(options: {
  path: string;
  roleId: string;
  tool: MountedTool | undefined;
  allowed: MountedTool | undefined;
  rolePattern: string | null;
  endpoint: Explanation['endpoint'];
  endpointPatterns: readonly string[] | null;
}): string[] {
  const { path, roleId, tool, allowed, rolePattern, endpoint } = options;
  const reasons: string[] = [];
  if (tool === undefined) {
    reasons.push(`No tool ${path} is mounted`);
  } else if (rolePattern === null) {
    reasons.push(`No pattern of role "${roleId}" matches ${path}`);
  } else if (allowed === undefined) {
    reasons.push(
      `Role "${roleId}" matches it with "${rolePattern}", but the tool does not allow service accounts`,
    );
  } else {
    reasons.push(`Role "${roleId}" admits it with the pattern "${rolePattern}"`);
  }
  if (endpoint !== null) {
    reasons.push(
      endpoint.pattern !== null
        ? `Endpoint toolset pattern "${endpoint.pattern}" admits it`
        : endpoint.admits
          ? 'The endpoint serves the whole role'
          : `No toolset pattern of the endpoint matches it (${(options.endpointPatterns ?? []).join(', ')})`,
    );
  }
  return reasons;
}

/** The credential, approval and health of a mounted tool, added to `reasons`. */
async function howACallGoes(
  services: ExplainServices,
  subject: ExplainSubject,
  tool: MountedTool,
  visible: boolean,
  reasons: string[],
) {
  const credential = !visible
    ? null
    : subject.kind === 'user'
      ? await userCredential(services, subject.id, tool)
      : await serviceAccountCredential(services, tool);
  const approval = approvalOf(services, tool);
  const source = sourceOf(services, tool);
  if (credential !== null) {
    reasons.push(
      `Credential: ${credential.why}${credential.required || credential.source === 'not_needed' ? '' : ' (if the tool asks for one at run time)'}`,
    );
  }
  reasons.push(`Approval: ${approval?.why ?? ''}`);
  if (!source?.healthy) reasons.push(`Source ${tool.sourceId} is not healthy: ${source?.detail}`);
  return { credential, approval, source };
}

/**
 * Why `subject` may or may not see and call the tool at `path`: the role (and endpoint toolset)
 * pattern deciding it, the credential a call would take now, whether it asks for approval, and
 * the source's health. An asker who is not an admin (or the service secret) learns nothing of a
 * tool the subject's role does not give: the answer is the same as for a tool that does not exist.
 *
 * @throws Refusal 404 for an unknown user, service account or endpoint (of that user).
 * @example
 * const explanation = await explain(services, principal, { kind: 'user', id }, 'notes.notes.list');
 */
export async function explain(
  services: ExplainServices,
  asker: AuthenticatedPrincipal,
  subject: ExplainSubject,
  path: string,
): Promise<Explanation> {
  const knowsAll = asker.kind === 'trusted' || (asker.kind === 'user' && asker.isAdmin);
  const { resolution, endpoint, endpointPatterns } = await resolveSubject(services, subject, path);
  const role = resolution.role;
  const subjectOut = { kind: subject.kind, id: subject.id, roleId: role.id };
  const allowed = resolution.tool(path);
  const tool = allowed ?? services.plugins.tools().find((item) => item.path === path);
  const rolePattern = firstMatch(role.patterns, path);
  if (allowed === undefined && !knowsAll) {
    return unknownTool(
      path,
      subjectOut,
      [`Role "${role.id}" gives no tool at ${path} (or there is no such tool)`],
      { id: role.id, admits: false, pattern: null },
      endpoint === null ? null : { ...endpoint, admits: false, pattern: null },
    );
  }
  const reasons = policyReasons({
    path,
    roleId: role.id,
    tool,
    allowed,
    rolePattern,
    endpoint,
    endpointPatterns,
  });
  const roleOut = { id: role.id, admits: rolePattern !== null, pattern: rolePattern };
  if (tool === undefined) return unknownTool(path, subjectOut, reasons, roleOut, endpoint);
  const visible = allowed !== undefined && (endpoint?.admits ?? true);
  const { credential, approval, source } = await howACallGoes(
    services,
    subject,
    tool,
    visible,
    reasons,
  );
  return {
    toolPath: path,
    subject: subjectOut,
    known: true,
    visible,
    callable:
      visible &&
      !(credential?.required === true && credential.source === 'none') &&
      source?.healthy === true,
    reasons,
    role: roleOut,
    endpoint,
    credential,
    approval,
    source,
  };
}

/** The answer for a tool the asker may not know of, or that is not mounted: nothing beyond why. */
function unknownTool(
  toolPath: string,
  subject: Explanation['subject'],
  reasons: string[],
  role: Explanation['role'],
  endpoint: Explanation['endpoint'],
): Explanation {
  return {
    toolPath,
    subject,
    known: false,
    visible: false,
    callable: false,
    reasons,
    role,
    endpoint,
    credential: null,
    approval: null,
    source: null,
  };
}
