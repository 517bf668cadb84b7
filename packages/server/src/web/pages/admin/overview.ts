import type { z } from 'zod';
import { type Overview, overviewSchema } from '../../../overview/index.js';
import { sourceListSchema } from '../../../registry/schemas.js';
import { userListSchema } from '../../../users/index.js';
import { activityChart } from '../../activity-chart.js';
import { withQuery } from '../../api.js';
import { pill, time } from '../../components.js';
import { type Html, html } from '../../html.js';
import { page, type WebKit } from '../../kit.js';
import { adminHead } from './admin-nav.js';

const hourOfDay = (iso: string) => `${iso.slice(11, 13)}:00`;
const dayAndHour = (iso: string) => `${iso.slice(5, 10)} ${iso.slice(11, 13)}:00`;

function ms(value: number | null): string {
  return value === null ? '–' : `${value} ms`;
}

function toolTable(
  id: string,
  caption: string,
  tools: {
    toolPath: string;
    calls: number;
    errors: number;
    p50Ms: number | null;
    p95Ms: number | null;
  }[],
): Html {
  return html`<section class="card" aria-labelledby="${id}">
<h2 id="${id}">${caption}</h2>
${
  tools.length === 0
    ? html`<p class="empty">None in the last 24 hours.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Tool</th><th scope="col">Calls</th><th scope="col">Errors</th><th scope="col">p50</th><th scope="col">p95</th></tr></thead>
<tbody>${tools.map(
        (tool) => html`<tr data-top-tool="${tool.toolPath}">
<th scope="row"><a href="${withQuery('/admin/executions', { tool: tool.toolPath })}"><code>${tool.toolPath}</code></a></th>
<td>${tool.calls}</td><td>${tool.errors}</td><td>${ms(tool.p50Ms)}</td><td>${ms(tool.p95Ms)}</td></tr>`,
      )}</tbody></table></div>`
}
</section>`;
}

type OverviewData = Overview;
type SourceItem = z.infer<typeof sourceListSchema>['sources'][number];

function totalCalls(
  hours: OverviewData['last24h'],
  key?: 'ok' | 'error' | 'denied' | 'expired',
): number {
  return hours.reduce(
    (total, hour) =>
      total +
      (key === undefined
        ? Object.values(hour.counts).reduce((a, b) => a + b, 0)
        : hour.counts[key]),
    0,
  );
}

/** The log's calls of one outcome over the chart's 24 hours. */
function logOf(overview: OverviewData, outcome: 'error' | 'denied' | 'expired'): string {
  const from = overview.last24h[0]?.hour;
  return withQuery('/admin/executions', { outcome, ...(from === undefined ? {} : { from }) });
}

function statsRow(overview: OverviewData, degraded: number): Html {
  return html`<div class="stats" role="list" aria-label="Last 24 hours">
<div class="stat" role="listitem"><strong>${totalCalls(overview.last24h)}</strong>calls in 24 h</div>
<div class="stat" role="listitem"><strong>${totalCalls(overview.last24h, 'error')}</strong><a href="${logOf(overview, 'error')}">errors in 24 h</a></div>
<div class="stat" role="listitem"><strong>${totalCalls(overview.last24h, 'denied')}</strong><a href="${logOf(overview, 'denied')}">denied in 24 h</a></div>
<div class="stat" role="listitem"><strong>${totalCalls(overview.last24h, 'expired')}</strong><a href="${logOf(overview, 'expired')}">approvals expired in 24 h</a></div>
<div class="stat" role="listitem"><strong>${overview.pendingApprovals.count}</strong><a href="#approvals-title">approvals waiting</a></div>
<div class="stat" role="listitem"><strong>${degraded}</strong><a href="#health-title">upstreams degraded</a></div>
</div>`;
}

function chartsCard(overview: OverviewData): Html {
  return html`<section class="card" aria-labelledby="activity-title">
<h2 id="activity-title">Calls by outcome</h2>
${activityChart({ id: 'day', title: 'Calls per hour, last 24 hours (UTC)', bars: overview.last24h.map((hour) => ({ label: hour.hour, counts: hour.counts })), tick: 3, axisLabel: hourOfDay })}
${activityChart({ id: 'week', title: 'Calls per hour, last 7 days (UTC)', bars: overview.last7d.map((hour) => ({ label: hour.hour, counts: hour.counts })), tick: 24, axisLabel: dayAndHour })}
</section>`;
}

function healthCard(upstreams: SourceItem[]): Html {
  return html`<section class="card" aria-labelledby="health-title">
<h2 id="health-title">Upstream health</h2>
${
  upstreams.length === 0
    ? html`<p class="empty">No upstream MCP servers registered.</p>`
    : html`<ul class="tools">${upstreams.map(
        (source) =>
          html`<li data-health="${source.id}"><div class="tool-title"><strong>${source.id}</strong>${
            source.upstream?.health.state === 'ok'
              ? pill('ok', 'ok')
              : html`${pill('degraded', 'danger')} <span class="small error">${source.upstream?.health.lastError ?? ''}</span>`
          } <a class="small" href="/admin/sources#settings-${source.id}">Settings</a></div></li>`,
      )}</ul>`
}
</section>`;
}

function waitingCards(overview: OverviewData, nameOf: (id: string) => string): Html {
  return html`<div class="grid-2">
<section class="card" aria-labelledby="reconnect-title">
<h2 id="reconnect-title">Connections needing a reconnect</h2>
${
  overview.reconnects.length === 0
    ? html`<p class="empty">None: every linked account renews.</p>`
    : html`<ul class="tools">${overview.reconnects.map(
        (mark) =>
          html`<li data-reconnect="${mark.provider}"><code>${mark.provider}</code> of ${nameOf(mark.userId)} <span class="small muted">since ${time(mark.since)}</span></li>`,
      )}</ul>`
}
</section>
<section class="card" aria-labelledby="approvals-title">
<h2 id="approvals-title">Approvals waiting</h2>
${
  overview.pendingApprovals.count === 0
    ? html`<p class="empty">Nothing is waiting.</p>`
    : html`<p>${overview.pendingApprovals.count} waiting; the oldest:</p><ul class="tools">${overview.pendingApprovals.oldest.map(
        (approval) =>
          html`<li data-waiting="${approval.id}"><code>${approval.toolPath}</code> for ${nameOf(approval.userId)} <span class="small muted">asked ${time(approval.createdAt)}, expires ${time(approval.expiresAt)}</span></li>`,
      )}</ul>`
}
</section>
</div>`;
}

/**
 * Admin → Overview, the first admin page: calls per hour over the last 24 hours and 7 days by
 * outcome (server-rendered SVG with a table fallback), the busiest and failing tools with their
 * latency, upstream health, accounts needing a reconnect and approvals waiting.
 */
export function mountOverviewPage(kit: WebKit): void {
  kit.app.get(
    '/admin',
    page(
      kit,
      async (ctx) => {
        const [overview, { sources }, { users }] = await Promise.all([
          ctx.api.get('/api/overview', overviewSchema),
          ctx.api.get('/api/registry/sources', sourceListSchema),
          ctx.api.get('/api/users', userListSchema),
        ]);
        const nameOf = (id: string) => users.find((user) => user.id === id)?.email ?? id;
        const upstreams = sources.filter((source) => source.upstream !== undefined);
        const degraded = upstreams.filter((source) => source.upstream?.health.state !== 'ok');
        const body = html`${adminHead('overview', 'Activity at a glance: calls over time by outcome, the busiest and failing tools, and what needs an admin.')}
${statsRow(overview, degraded.length)}
${chartsCard(overview)}
<div class="grid-2">
${toolTable('top-calls-title', 'Top tools by calls (24 hours)', overview.topByCalls)}
${toolTable('top-errors-title', 'Top tools by errors (24 hours)', overview.topByErrors)}
</div>
${healthCard(upstreams)}
${waitingCards(overview, nameOf)}`;
        return ctx.render({ title: 'Overview', active: 'admin', body });
      },
      { admin: true },
    ),
  );
}
