import { type Explanation, explanationSchema } from '../../explain/index.js';
import { serviceAccountListSchema } from '../../service-accounts/schemas.js';
import { userListSchema } from '../../users/index.js';
import { withQuery } from '../api.js';
import { pill, selected } from '../components.js';
import { type Html, html } from '../html.js';
import { page, type WebKit } from '../kit.js';
import { adminHead } from './admin/admin-nav.js';

const SOURCES: Record<string, string> = {
  connection: 'Own connection',
  team_connection: 'Team connection',
  oauth: 'Sign-in account',
  api_key: 'Server key',
  none: 'None',
  not_needed: 'Not needed',
};

/** The verdict of explain as a card: a headline, then each part of the answer. */
export function explanationCard(answer: Explanation): Html {
  const verdict = answer.callable
    ? pill('Callable', 'ok')
    : answer.visible
      ? pill('Visible, but a call would fail now', 'warn')
      : pill('Not visible', 'danger');
  return html`<section class="card" aria-labelledby="explain-result" data-explanation="${answer.toolPath}" data-visible="${String(answer.visible)}" data-callable="${String(answer.callable)}">
<h2 id="explain-result"><code>${answer.toolPath}</code> ${verdict}</h2>
<p class="muted small">For ${answer.subject.kind === 'user' ? 'user' : 'service account'} <code>${answer.subject.id}</code>, role <code>${answer.subject.roleId}</code>.</p>
<dl class="facts">
<dt>Role</dt><dd>${answer.role.pattern === null ? 'No pattern of the role matches' : html`Admitted by <code>${answer.role.pattern}</code>`}</dd>
${
  answer.endpoint === null
    ? ''
    : html`<dt>Endpoint</dt><dd>${answer.endpoint.pattern !== null ? html`Toolset pattern <code>${answer.endpoint.pattern}</code> admits it` : answer.endpoint.admits ? 'Serves the whole role' : 'No toolset pattern matches'} (${answer.endpoint.mode})</dd>`
}
${
  answer.credential === null
    ? ''
    : html`<dt>Credential</dt><dd data-credential="${answer.credential.source}">${SOURCES[answer.credential.source] ?? answer.credential.source}: ${answer.credential.why}${answer.credential.required || answer.credential.source === 'not_needed' ? '' : ' (only if the tool asks for one at run time)'}</dd>`
}
${answer.approval === null ? '' : html`<dt>Approval</dt><dd>${answer.approval.asks === 'yes' ? 'Asks first' : answer.approval.asks === 'no' ? 'Does not ask' : 'The tool decides'}: ${answer.approval.why}</dd>`}
${answer.source === null ? '' : html`<dt>Source</dt><dd><code>${answer.source.id}</code>: ${answer.source.healthy ? pill('healthy', 'ok') : pill('not healthy', 'danger')} ${answer.source.detail ?? ''}</dd>`}
</dl>
<h3>Why</h3>
<ul>${answer.reasons.map((reason) => html`<li>${reason}</li>`)}</ul>
</section>`;
}

/**
 * Explain, twice: `/tools/explain?tool=` for the viewer's own tools (the button on each tool's
 * row), and Admin → Explain, a form for any user or service account and any tool path.
 */
export function mountExplainPages(kit: WebKit): void {
  kit.app.get(
    '/tools/explain',
    page(kit, async (ctx) => {
      const tool = ctx.c.req.query('tool')?.trim() ?? '';
      const answer =
        tool === ''
          ? undefined
          : await ctx.api.get(
              withQuery('/api/explain', { tool, userId: ctx.viewer.id }),
              explanationSchema,
            );
      const body = html`<div class="page-head"><div><h1>Explain a tool</h1>
<p class="lead">Whether you may see and call a tool, which credential a call would use, and whether it asks first.</p></div></div>
<form class="card inline-form" method="get" action="/tools/explain">
<label for="explain-tool">Tool path</label>
<input id="explain-tool" name="tool" type="text" required maxlength="300" value="${tool}" spellcheck="false" autocomplete="off">
<button type="submit">Explain</button>
</form>
${answer === undefined ? '' : explanationCard(answer)}
<p><a href="/tools">Back to your tools</a></p>`;
      return ctx.render({ title: 'Explain', active: 'tools', body });
    }),
  );

  kit.app.get(
    '/admin/explain',
    page(
      kit,
      async (ctx) => {
        const query = (name: string) => ctx.c.req.query(name)?.trim() || undefined;
        const tool = query('tool');
        const who =
          query('who') ?? (query('userId') === undefined ? undefined : `user:${query('userId')}`);
        const endpointId = query('endpointId');
        const [{ users }, { serviceAccounts }] = await Promise.all([
          ctx.api.get('/api/users', userListSchema),
          ctx.api.get('/api/service-accounts', serviceAccountListSchema),
        ]);
        const [kind, id] = who?.includes(':')
          ? [who.slice(0, who.indexOf(':')), who.slice(who.indexOf(':') + 1)]
          : ['user', ctx.viewer.id];
        const answer =
          tool === undefined
            ? undefined
            : await ctx.api.get(
                withQuery(
                  '/api/explain',
                  kind === 'sa' ? { tool, serviceAccountId: id } : { tool, userId: id, endpointId },
                ),
                explanationSchema,
              );
        const current = `${kind}:${id}`;
        const body = html`${adminHead('explain', 'Why a user or service account can or cannot see and call a tool: the pattern that decides, the credential a call would use, approval and the source’s health.')}
<form class="card" method="get" action="/admin/explain" aria-labelledby="explain-form-title">
<h2 id="explain-form-title">Explain a call</h2>
<div class="filters">
<div><label for="explain-who">User or service account</label>
<select id="explain-who" name="who">
<optgroup label="Users">${users.map((user) => html`<option value="user:${user.id}"${selected(current === `user:${user.id}`)}>${user.name} (${user.email})</option>`)}</optgroup>
${serviceAccounts.length === 0 ? '' : html`<optgroup label="Service accounts">${serviceAccounts.map((account) => html`<option value="sa:${account.id}"${selected(current === `sa:${account.id}`)}>${account.name}</option>`)}</optgroup>`}
</select></div>
<div><label for="explain-tool">Tool path</label><input id="explain-tool" name="tool" type="text" required maxlength="300" value="${tool ?? ''}" spellcheck="false" autocomplete="off"></div>
<div><label for="explain-endpoint">Endpoint id<span class="hint">Optional: a user's MCP endpoint, whose toolset narrows the role</span></label><input id="explain-endpoint" name="endpointId" type="text" maxlength="200" value="${endpointId ?? ''}" spellcheck="false" autocomplete="off"></div>
</div>
<div class="actions"><button type="submit">Explain</button></div>
</form>
${answer === undefined ? '' : explanationCard(answer)}`;
        return ctx.render({ title: 'Explain', active: 'admin', body });
      },
      { admin: true },
    ),
  );
}
