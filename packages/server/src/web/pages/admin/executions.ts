import type { z } from 'zod';
import { OUTCOME_FILTERS } from '../../../executions/index.js';
import {
  executionDetailSchema,
  executionPageSchema,
  type executionSchema,
} from '../../../executions/schemas.js';
import { sourceListSchema } from '../../../registry/schemas.js';
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

/** The filters of the log as the page's query carries them (times as `datetime-local`, UTC). */
interface LogFilters {
  userId?: string | undefined;
  tool?: string | undefined;
  source?: string | undefined;
  outcome?: string | undefined;
  endpointId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

const FIELDS = ['userId', 'tool', 'source', 'outcome', 'endpointId', 'from', 'to'] as const;

function readFilters(query: (name: string) => string | undefined): LogFilters {
  const filters: LogFilters = {};
  for (const field of FIELDS) {
    const value = query(field)?.trim();
    if (value) filters[field] = value;
  }
  return filters;
}

/** A `datetime-local` value (no zone) read as UTC; an ISO value passes as is. */
function asInstant(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00Z` : value;
}

function apiFilters(filters: LogFilters): Record<string, string | undefined> {
  return { ...filters, from: asInstant(filters.from), to: asInstant(filters.to) };
}

type Execution = z.infer<typeof executionSchema>;
type User = z.infer<typeof userListSchema>['users'][number];

function filtersForm(filters: LogFilters, users: User[], namespaces: string[]): Html {
  const exportHref = (format: 'csv' | 'jsonl') =>
    withQuery('/api/executions/export', { ...apiFilters(filters), format });
  const filtered = Object.keys(filters).length > 0;
  return html`<form class="card" method="get" action="/admin/executions" aria-labelledby="filters-title">
<h2 id="filters-title">Filters</h2>
<div class="filters">
<div><label for="log-user">User</label>
<select id="log-user" name="userId"><option value="">Everyone</option>${users.map(
    (user) =>
      html`<option value="${user.id}"${selected(user.id === filters.userId)}>${user.name} (${user.email})</option>`,
  )}</select></div>
<div><label for="log-tool">Tool starts with</label><input id="log-tool" name="tool" type="search" maxlength="300" value="${filters.tool ?? ''}" placeholder="github.repos" autocomplete="off" spellcheck="false"></div>
<div><label for="log-source">Source</label>
<select id="log-source" name="source"><option value="">Any</option>${namespaces.map(
    (namespace) =>
      html`<option value="${namespace}"${selected(namespace === filters.source)}>${namespace}</option>`,
  )}</select></div>
<div><label for="log-outcome">Outcome</label>
<select id="log-outcome" name="outcome"><option value="">Any</option>${OUTCOME_FILTERS.map(
    (value) =>
      html`<option value="${value}"${selected(value === filters.outcome)}>${value}</option>`,
  )}</select></div>
<div><label for="log-endpoint">Endpoint id</label><input id="log-endpoint" name="endpointId" type="text" maxlength="200" value="${filters.endpointId ?? ''}" autocomplete="off" spellcheck="false"></div>
<div><label for="log-from">From (UTC)</label><input id="log-from" name="from" type="datetime-local" value="${filters.from ?? ''}"></div>
<div><label for="log-to">Until (UTC)</label><input id="log-to" name="to" type="datetime-local" value="${filters.to ?? ''}"></div>
</div>
<div class="actions"><button type="submit">Show</button>${filtered ? html`<a class="button secondary" href="/admin/executions">Clear filters</a>` : ''}
<a class="button secondary" href="${exportHref('csv')}" download>Export CSV</a>
<a class="button secondary" href="${exportHref('jsonl')}" download>Export JSON Lines</a></div>
</form>`;
}

function logTable(
  executions: Execution[],
  nameOf: (id: string) => string,
  filtered: boolean,
): Html {
  if (executions.length === 0) {
    return html`<p class="empty">${filtered ? 'No tool calls match these filters.' : 'No tool calls yet.'}</p>`;
  }
  return html`<div class="table-wrap"><table>
<thead><tr><th scope="col">When</th><th scope="col">User</th><th scope="col">Tool</th><th scope="col">Outcome</th><th scope="col">Duration</th><th scope="col">Approval</th><th scope="col"><span class="visually-hidden">Details</span></th></tr></thead>
<tbody>${executions.map(
    (execution) => html`<tr data-execution="${execution.id}">
<td>${time(execution.startedAt)}</td>
<td>${nameOf(execution.userId)}</td>
<td><code>${execution.toolPath}</code></td>
<td>${outcome(execution.outcome)}${execution.error ? html`<br><span class="small error">${execution.error}</span>` : ''}</td>
<td>${execution.durationMs === null ? '–' : `${Math.round(execution.durationMs)} ms`}</td>
<td>${execution.approval ?? html`<span class="muted">–</span>`}</td>
<td><a href="/admin/executions/${encodeURIComponent(execution.id)}" aria-label="Details of the ${execution.toolPath} call">Details</a></td>
</tr>`,
  )}</tbody></table></div>`;
}

function detailCard(execution: Execution): Html {
  return html`<section class="card" aria-labelledby="call-title" data-execution-detail="${execution.id}">
<h2 id="call-title"><code>${execution.toolPath}</code></h2>
<dl class="facts">
<dt>Execution id</dt><dd><code>${execution.id}</code></dd>
<dt>User</dt><dd><a href="${withQuery('/admin/executions', { userId: execution.userId })}"><code>${execution.userId}</code></a></dd>
<dt>Started</dt><dd>${time(execution.startedAt)}</dd>
<dt>Duration</dt><dd>${execution.durationMs === null ? 'still running' : `${Math.round(execution.durationMs)} ms`}</dd>
<dt>Outcome</dt><dd>${outcome(execution.outcome)}${execution.error ? html` <span class="error">${execution.error}</span>` : ''}</dd>
<dt>Approval</dt><dd>${execution.approval === null ? 'not asked' : html`${execution.approval}${execution.approvedBy === null ? '' : html` by <code>${execution.approvedBy}</code>`}`}</dd>
<dt>Endpoint</dt><dd>${execution.endpointId === null ? html`<span class="muted">none</span>` : html`<code>${execution.endpointId}</code>`}</dd>
<dt>Client</dt><dd>${execution.clientId === null ? html`<span class="muted">none (a token endpoint)</span>` : html`<code>${execution.clientId}</code>`}</dd>
</dl>
<h3>Arguments</h3>
<pre tabindex="0" aria-label="Arguments"><code>${JSON.stringify(execution.arguments ?? {}, null, 2)}</code></pre>
<p><a href="/admin/executions">Back to the log</a> · <a href="${withQuery('/admin/explain', { userId: execution.userId, tool: execution.toolPath })}">Explain this tool for this user</a></p>
</section>`;
}

/**
 * The execution log: every tool call across users, newest first, 50 a page, filtered by user,
 * tool, source, outcome, endpoint and time; each call's detail; export of the filtered set.
 */
export function mountExecutionsPage(kit: WebKit): void {
  kit.app.get(
    '/admin/executions',
    page(
      kit,
      async (ctx) => {
        const filters = readFilters((name) => ctx.c.req.query(name));
        const cursor = ctx.c.req.query('cursor') || undefined;
        const [{ users }, { sources }, { executions, nextCursor }] = await Promise.all([
          ctx.api.get('/api/users', userListSchema),
          ctx.api.get('/api/registry/sources', sourceListSchema),
          ctx.api.get(
            withQuery('/api/executions', { ...apiFilters(filters), cursor, limit: '50' }),
            executionPageSchema,
          ),
        ]);
        const nameOf = (id: string) => users.find((user) => user.id === id)?.email ?? id;
        const namespaces = [...new Set(sources.map((source) => source.namespace))].sort();
        const filtered = Object.keys(filters).length > 0;
        const body = html`${adminHead('executions', 'Every tool call: who, which tool, when, the outcome and the approval decision. Secrets in arguments are redacted.')}
${filtersForm(filters, users, namespaces)}
<section class="card" aria-labelledby="log-title">
<h2 id="log-title">Tool calls</h2>
${logTable(executions, nameOf, filtered)}
${
  nextCursor === null
    ? ''
    : html`<p><a class="button secondary" href="${withQuery('/admin/executions', { ...filters, cursor: nextCursor })}">Older calls</a></p>`
}
</section>`;
        return ctx.render({ title: 'Execution log', active: 'admin', body });
      },
      { admin: true },
    ),
  );

  kit.app.get(
    '/admin/executions/:id',
    page(
      kit,
      async (ctx) => {
        const id = ctx.c.req.param('id') ?? '';
        const { execution } = await ctx.api.get(
          `/api/executions/${encodeURIComponent(id)}`,
          executionDetailSchema,
        );
        const body = html`${adminHead('executions', 'One tool call as recorded. Secrets in arguments are redacted.')}
${detailCard(execution)}`;
        return ctx.render({ title: 'Tool call', active: 'admin', body });
      },
      { admin: true },
    ),
  );
}
