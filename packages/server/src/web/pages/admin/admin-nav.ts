import { type Html, html, raw } from '../../html.js';

/** The admin pages. */
export type AdminSection =
  | 'overview'
  | 'roles'
  | 'users'
  | 'invites'
  | 'service-accounts'
  | 'sources'
  | 'providers'
  | 'executions'
  | 'explain';

const SECTIONS: readonly { key: AdminSection; href: string; label: string }[] = [
  { key: 'overview', href: '/admin', label: 'Overview' },
  { key: 'roles', href: '/admin/roles', label: 'Roles' },
  { key: 'users', href: '/admin/users', label: 'Users' },
  { key: 'invites', href: '/admin/invites', label: 'Invites' },
  { key: 'service-accounts', href: '/admin/service-accounts', label: 'Service accounts' },
  { key: 'sources', href: '/admin/sources', label: 'Sources' },
  { key: 'providers', href: '/admin/providers', label: 'Providers' },
  { key: 'executions', href: '/admin/executions', label: 'Execution log' },
  { key: 'explain', href: '/admin/explain', label: 'Explain' },
];

/** The heading and section tabs of the admin pages. */
export function adminHead(active: AdminSection, lead: string): Html {
  return html`<div class="page-head"><div><h1>Admin</h1><p class="lead">${lead}</p></div></div>
<nav aria-label="Admin sections"><ul class="sub-nav">${SECTIONS.map(
    (section) =>
      html`<li><a href="${section.href}"${section.key === active ? raw(' aria-current="page"') : ''}>${section.label}</a></li>`,
  )}</ul></nav>`;
}
