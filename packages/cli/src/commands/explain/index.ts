import { type Explanation, explanation } from '../../api/schemas.js';
import { type SignedInOptions, signedInApi } from '../../api/signed-in.js';
import { createColors } from '../../output/color.js';
import { printJson } from '../../output/table.js';

export type { Explanation } from '../../api/schemas.js';

/** Options of `runExplain()`. */
export interface ExplainOptions extends SignedInOptions {
  tool: string;
  /** Whose call; default the signed-in user (admins: anyone). */
  user?: string | undefined;
  /** A service account's call instead (admins). */
  serviceAccount?: string | undefined;
  /** Through this MCP endpoint of the user. */
  endpoint?: string | undefined;
  json?: boolean | undefined;
}

const SOURCES: Record<string, string> = {
  connection: 'own connection',
  team_connection: 'team connection',
  oauth: 'sign-in account',
  api_key: 'server key',
  none: 'none',
  not_needed: 'not needed',
};

/**
 * `gateway explain <tool>`: whether the signed-in user (or `--user`, `--service-account`) sees
 * and may call a tool, and why (`GET /api/explain`).
 */
export async function runExplain(options: ExplainOptions): Promise<Explanation> {
  const { io } = options;
  const api = await signedInApi(options);
  const answer = await api.call({
    method: 'GET',
    path: '/api/explain',
    query: {
      tool: options.tool,
      userId:
        options.serviceAccount === undefined ? (options.user ?? (await api.userId())) : undefined,
      serviceAccountId: options.serviceAccount,
      endpointId: options.endpoint,
    },
    schema: explanation,
    notFoundHint: 'check the user, service account or endpoint id',
  });
  if (options.json) {
    printJson(io, answer);
    return answer;
  }
  const c = createColors(io);
  const verdict = answer.callable
    ? c.green('callable')
    : answer.visible
      ? c.yellow('visible, but a call would fail now')
      : c.red('not visible');
  const lines = [
    `${answer.toolPath} for ${answer.subject.kind === 'user' ? 'user' : 'service account'} ${answer.subject.id} (role ${answer.subject.roleId}): ${verdict}`,
    `  role:       ${answer.role.pattern === null ? 'no pattern matches' : `admitted by "${answer.role.pattern}"`}`,
  ];
  const endpoint = answer.endpoint;
  if (endpoint) {
    lines.push(
      `  endpoint:   ${endpoint.pattern !== null ? `admitted by "${endpoint.pattern}"` : endpoint.admits ? 'serves the whole role' : 'no toolset pattern matches'}`,
    );
  }
  if (answer.credential !== null) {
    lines.push(
      `  credential: ${SOURCES[answer.credential.source] ?? answer.credential.source} (${answer.credential.why})`,
    );
  }
  if (answer.approval !== null)
    lines.push(`  approval:   ${answer.approval.asks} (${answer.approval.why})`);
  if (answer.source !== null) {
    lines.push(
      `  source:     ${answer.source.id}, ${answer.source.healthy ? 'healthy' : 'not healthy'}${answer.source.detail === null ? '' : ` (${answer.source.detail})`}`,
    );
  }
  if (!answer.visible) for (const reason of answer.reasons) lines.push(`  why:        ${reason}`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return answer;
}
