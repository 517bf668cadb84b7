import { executionPageSchema } from '../../../executions/schemas.js';
import { userListSchema } from '../../../users/index.js';
import { withQuery } from '../../api.js';
import { pill, selected, time } from '../../components.js';
import { type Html, html } from '../../html.js';
import { page, type WebKit } from '../../kit.js';
import { adminHead } from './admin-nav.js';

const OUTCOME_TONES = { ok: 'ok', error: 'danger', denied: 'warn', timeout: 'warn' } as const;

function outcome(value: 'ok' | 'error' | 'denied' | 'timeout' | null): Html {
  return value === null ? pill('running', 'info') : pill(value, OUTCOME_TONES[value]);
}

/** The execution log: every tool call of a user, newest first, 50 a page. */
export function mountExecutionsPage(kit: WebKit): void {
  kit.app.get(
    '/admin/executions',
    page(
      kit,
      async (ctx) => {
        const { users } = await ctx.api.get('/api/users', userListSchema);
        const requested = ctx.c.req.query('userId');
        const userId = users.some((user) => user.id === requested) ? requested : ctx.viewer.id;
        const cursor = ctx.c.req.query('cursor');
        const { executions, nextCursor } = await ctx.api.get(
          withQuery('/api/executions', { userId, cursor: cursor || undefined, limit: '50' }),
          executionPageSchema,
        );
        const body = html`${adminHead('executions', 'Every tool call: who, which tool, when, the outcome and the approval decision. Secrets in arguments are redacted.')}
<form class="inline-form card" method="get" action="/admin/executions">
<label for="log-user">User</label>
<select id="log-user" name="userId">${users.map(
          (user) =>
            html`<option value="${user.id}"${selected(user.id === userId)}>${user.name} (${user.email})</option>`,
        )}</select>
<button type="submit" class="secondary">Show</button>
</form>
<section class="card" aria-labelledby="log-title">
<h2 id="log-title">Tool calls</h2>
${
  executions.length === 0
    ? html`<p class="empty">No tool calls yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">When</th><th scope="col">Tool</th><th scope="col">Outcome</th><th scope="col">Duration</th><th scope="col">Approval</th><th scope="col">Arguments</th></tr></thead>
<tbody>${executions.map(
        (execution) => html`<tr data-execution="${execution.id}">
<td>${time(execution.startedAt)}</td>
<td><code>${execution.toolPath}</code></td>
<td>${outcome(execution.outcome)}${execution.error ? html`<br><span class="small error">${execution.error}</span>` : ''}</td>
<td>${execution.durationMs === null ? '–' : `${Math.round(execution.durationMs)} ms`}</td>
<td>${execution.approval ?? html`<span class="muted">–</span>`}</td>
<td><details><summary class="small">Show</summary><pre>${JSON.stringify(execution.arguments ?? {}, null, 2)}</pre></details></td>
</tr>`,
      )}</tbody></table></div>`
}
${
  nextCursor === null
    ? ''
    : html`<p><a class="button secondary" href="${withQuery('/admin/executions', { userId, cursor: nextCursor })}">Older calls</a></p>`
}
</section>`;
        return ctx.render({ title: 'Execution log', active: 'admin', body });
      },
      { admin: true },
    ),
  );
}
