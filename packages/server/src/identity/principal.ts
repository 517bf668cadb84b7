/** The role that makes a user an admin. It cannot be deleted, and the last admin cannot lose it. */
export const ADMIN_ROLE_ID = 'admin';

/** Nobody: no credential was sent. */
export interface AnonymousPrincipal {
  readonly kind: 'anonymous';
}

/** A trusted server holding `SERVICE_API_SECRET`: may act for any user. */
export interface TrustedPrincipal {
  readonly kind: 'trusted';
}

/** How a user proved who they are. */
export type UserCredential = 'session' | 'cli_token' | 'mcp_token';

/** A person: signed in through the browser, or holding one of their CLI or MCP tokens. */
export interface UserPrincipal {
  readonly kind: 'user';
  readonly userId: string;
  /** The role that applies: the assigned one, else the default role. */
  readonly roleId: string;
  /** Whether {@link roleId} is the admin role; decided in {@link isAdminRole} alone. */
  readonly isAdmin: boolean;
  readonly via: UserCredential;
  /** The MCP endpoint whose token was used (`via: 'mcp_token'`). */
  readonly endpointId?: string;
  /**
   * The applying role's row (patterns as stored JSON) as read with the MCP endpoint token on this
   * very request (`via: 'mcp_token'`), or null when that role does not exist: a 2026-07-28 call,
   * which lives no longer than its request, resolves its tools from it without reading the role
   * again, and so does a 2025 session's call from the principal of the request carrying it (a
   * session outlives the request that opened it, whose rows it never uses for a call).
   */
  readonly roleRow?: {
    readonly id: string;
    readonly name: string;
    readonly patterns: string;
  } | null;
  /**
   * The endpoint's `tools` and `mode` as stored, read with its token on this very request
   * (`via: 'mcp_token'`): a call that lives no longer than its request takes what the endpoint
   * serves from it instead of reading the endpoint again, as with {@link roleRow}.
   */
  readonly endpointRow?: { readonly tools: string | null; readonly mode: string };
  /** The OAuth client of the endpoint, when a `gw_oat_` access token was used. */
  readonly clientId?: string;
  /** The CLI token used (`via: 'cli_token'`). */
  readonly tokenId?: string;
  /** When the CLI token used expires (`via: 'cli_token'`); null when it never does. */
  readonly expiresAt?: string | null;
}

/** A service account, by one of its keys: calls tools with its own role, acts for nobody. */
export interface ServiceAccountPrincipal {
  readonly kind: 'service_account';
  readonly serviceAccountId: string;
  readonly roleId: string;
}

/**
 * Who a request acts for, decided once per request by `authenticate()` for every surface: the
 * JSON API, MCP, the web app and the CLI pages.
 */
export type Principal =
  | AnonymousPrincipal
  | TrustedPrincipal
  | UserPrincipal
  | ServiceAccountPrincipal;

/** A principal that sent a credential that was accepted. */
export type AuthenticatedPrincipal = Exclude<Principal, AnonymousPrincipal>;

/** A principal that calls tools: a user or a service account. */
export type ToolPrincipal = UserPrincipal | ServiceAccountPrincipal;

export const ANONYMOUS: AnonymousPrincipal = Object.freeze({ kind: 'anonymous' });
export const TRUSTED: TrustedPrincipal = Object.freeze({ kind: 'trusted' });

/** Whether a role makes its holder an admin: the one place that decides it. */
export function isAdminRole(roleId: string): boolean {
  return roleId === ADMIN_ROLE_ID;
}

/** A user principal, with admin-ness derived from the role that applies. */
export function userPrincipal(fields: Omit<UserPrincipal, 'kind' | 'isAdmin'>): UserPrincipal {
  return { kind: 'user', ...fields, isAdmin: isAdminRole(fields.roleId) };
}

/**
 * Whether `principal` may act for the user `userId`: that user themself, an admin, or the trusted
 * caller. Service accounts act for nobody.
 */
export function mayActFor(principal: Principal, userId: string): boolean {
  if (principal.kind === 'trusted') return true;
  return principal.kind === 'user' && (principal.userId === userId || principal.isAdmin);
}

/** The id tool handlers see as `ctx.userId`, and execution records keep: a user's or an account's. */
export function subjectId(principal: ToolPrincipal): string {
  return principal.kind === 'user' ? principal.userId : principal.serviceAccountId;
}

/** A stable key naming the principal, for binding sessions and request state to it. */
export function principalKey(principal: ToolPrincipal): string {
  return principal.kind === 'user'
    ? `user:${principal.userId}`
    : `service_account:${principal.serviceAccountId}`;
}

/** What the request log says the caller was: a user id, or the kind of caller. */
export function logIdentity(principal: Principal): string | undefined {
  if (principal.kind === 'user') return principal.userId;
  return principal.kind === 'anonymous' ? undefined : principal.kind;
}
