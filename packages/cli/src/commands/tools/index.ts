import { resolvedTools } from '../../api/schemas.js';
import { type SignedInOptions, signedInApi } from '../../api/signed-in.js';
import { printJson, printTable } from '../../output/table.js';

/** Options of `runTools()`. */
export interface ToolsOptions extends SignedInOptions {
  json?: boolean | undefined;
}

/** One tool the user may call. */
export interface ResolvedTool {
  path: string;
  name: string;
  description: string;
  destructive: boolean;
  authProvider?: string | undefined;
  pluginId: string;
}

/**
 * `gateway tools`: the tools the signed-in user's role allows (`GET /api/policy/resolve`):
 * what their MCP endpoints list.
 */
export async function runTools(options: ToolsOptions): Promise<ResolvedTool[]> {
  const { io } = options;
  const api = await signedInApi(options);
  const answer = await api.call({
    method: 'GET',
    path: '/api/policy/resolve',
    query: { userId: await api.userId() },
    schema: resolvedTools,
  });
  if (options.json) {
    printJson(io, answer);
    return answer.tools;
  }
  if (answer.tools.length === 0) {
    io.stdout.write(
      'Your role allows no tools yet; an admin grants them with `gateway roles set` and `gateway roles assign`.\n',
    );
    return answer.tools;
  }
  printTable(
    io,
    ['PATH', 'NAME', 'NEEDS', 'ASKS FIRST'],
    answer.tools.map((tool) => [
      tool.path,
      tool.name,
      tool.authProvider ?? '-',
      tool.destructive ? 'yes' : 'no',
    ]),
  );
  return answer.tools;
}
