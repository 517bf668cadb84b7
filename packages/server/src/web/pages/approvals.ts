import { z } from 'zod';
import { approvalPageSchema, decidedSchema } from '../../approvals/schemas.js';
import { withQuery } from '../api.js';
import { time } from '../components.js';
import { type Html, html } from '../html.js';
import { action, page, seeOther, type WebKit } from '../kit.js';

type Approval = z.infer<typeof approvalPageSchema>['approvals'][number];

/** One pending approval; the page script builds the same markup when it refreshes the list. */
function approvalItem(approval: Approval): Html {
  return html`<li class="card approval" data-approval-id="${approval.id}">
<h2><code>${approval.toolPath}</code></h2>
<p class="approval-message">${approval.message}</p>
<pre class="approval-args" role="region" aria-label="Arguments">${JSON.stringify(approval.args ?? {}, null, 2)}</pre>
<p class="muted small">Asked ${time(approval.createdAt)} · expires ${time(approval.expiresAt)}</p>
<form class="actions" method="post" action="/approvals/${encodeURIComponent(approval.id)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</li>`;
}

/**
 * Approvals: the viewer's pending approvals (tool, arguments, message) from AI clients that
 * cannot ask the user themselves. Approve or deny; the script refreshes the list every 2 s.
 */
export function mountApprovalsPage(kit: WebKit): void {
  const { app } = kit;

  app.get(
    '/approvals',
    page(kit, async (ctx) => {
      const { approvals } = await ctx.api.get(
        withQuery('/api/approvals', { userId: ctx.viewer.id, limit: '200' }),
        approvalPageSchema,
      );
      const body = html`<div class="page-head"><div><h1>Approvals</h1>
<p class="lead">Tools that change things ask first. When your AI client cannot ask you itself, the request waits here.</p></div>
<p class="muted small" id="approval-status" aria-live="off">Updates every 2 seconds</p></div>
<p class="notice error" id="approval-error" role="alert" hidden></p>
<ul class="approvals" id="approval-list" data-user-id="${ctx.viewer.id}" data-ids="${approvals.map((a) => a.id).join(',')}" aria-label="Pending approvals">
${
  approvals.length === 0
    ? html`<li class="empty">No pending approvals. New requests appear here as tools ask.</li>`
    : approvals.map(approvalItem)
}
</ul>`;
      return ctx.render({ title: 'Approvals', active: 'approvals', body });
    }),
  );

  // Without the script, the buttons post here.
  app.post(
    '/approvals/:id',
    action(kit, '/approvals', async (ctx, form) => {
      const decision = z.enum(['approve', 'deny']).safeParse(form.decision);
      if (!decision.success) {
        return seeOther(ctx.c, '/approvals', { kind: 'error', text: 'Choose Approve or Deny.' });
      }
      await ctx.api.send(
        'POST',
        `/api/approvals/${encodeURIComponent(ctx.c.req.param('id') ?? '')}`,
        { decision: decision.data },
        decidedSchema,
      );
      return seeOther(ctx.c, '/approvals', {
        kind: 'ok',
        text:
          decision.data === 'approve'
            ? 'Approved; the tool call continues.'
            : 'Denied; the tool does nothing.',
      });
    }),
  );
}
