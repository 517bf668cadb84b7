import type { Viewer } from '../identity/index.js';
import { ASSETS } from './assets/index.js';
import { confirmDialog } from './components.js';
import type { Flash } from './flash.js';
import { type Html, html, raw } from './html.js';

/** The sections of the main navigation. */
export type Section = 'tools' | 'team' | 'endpoints' | 'approvals' | 'admin';

export interface LayoutOptions {
  title: string;
  body: Html;
  viewer?: Viewer | undefined;
  active?: Section;
  flash?: Flash | undefined;
  /** Pending approvals of the viewer, shown as a badge. */
  pendingApprovals?: number;
  /** A narrow single column (the sign-in pages). */
  narrow?: boolean;
}

const NAV: readonly { key: Section; href: string; label: string; admin?: boolean }[] = [
  { key: 'tools', href: '/tools', label: 'Tools' },
  { key: 'team', href: '/team', label: 'Team tools' },
  { key: 'endpoints', href: '/endpoints', label: 'MCP endpoints' },
  { key: 'approvals', href: '/approvals', label: 'Approvals' },
  { key: 'admin', href: '/admin', label: 'Admin', admin: true },
];

function brand(): Html {
  return html`<a class="brand" href="/"><span class="brand-mark" aria-hidden="true">G</span>Gateway</a>`;
}

function nav(viewer: Viewer, active: Section | undefined, pending: number): Html {
  const items = NAV.filter((item) => !item.admin || viewer.isAdmin);
  return html`<nav class="main-nav" aria-label="Main">
<ul>${items.map(
    (item) =>
      html`<li><a href="${item.href}"${item.key === active ? raw(' aria-current="page"') : ''}>${item.label}${
        item.key === 'approvals'
          ? html`<span class="badge" data-approval-count${pending === 0 ? raw(' hidden') : ''}>${pending}</span><span class="visually-hidden"> pending</span>`
          : ''
      }</a></li>`,
  )}</ul>
</nav>`;
}

function flashNotice(flash: Flash | undefined): Html {
  if (flash === undefined) return html``;
  return html`<p class="notice ${flash.kind}" data-flash role="${flash.kind === 'error' ? 'alert' : 'status'}">${flash.text}</p>`;
}

/**
 * A complete page of the web app: header with the main navigation and the account menu, the
 * flash message, the body, and the shared confirmation dialog.
 */
export function layout(options: LayoutOptions): Html {
  const { viewer } = options;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Gateway</title>
<link rel="icon" href="${ASSETS.icon.url}" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS.css.url}">
<script src="${ASSETS.js.url}" defer></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<div class="site-header-inner">
${brand()}
${viewer === undefined ? '' : nav(viewer, options.active, options.pendingApprovals ?? 0)}
${
  viewer === undefined
    ? ''
    : html`<div class="account"><span title="${viewer.email}">${viewer.name || viewer.email}${viewer.isAdmin ? html` <span class="pill info">admin</span>` : ''}</span>
<form method="post" action="/sign-out"><button type="submit" class="link">Sign out</button></form></div>`
}
</div>
</header>
<main id="main" tabindex="-1"${options.narrow ? raw(' class="narrow"') : ''}>
${flashNotice(options.flash)}
${options.body}
</main>
<div id="live" class="visually-hidden" aria-live="polite"></div>
${confirmDialog()}
</body>
</html>`;
}
