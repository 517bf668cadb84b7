import { deleted, inviteCreated, inviteList } from '../../api/schemas.js';
import { type SignedInOptions, signedInApi } from '../../api/signed-in.js';
import { CliError } from '../../cli-error.js';
import { createColors } from '../../output/color.js';
import { printJson, printTable } from '../../output/table.js';

/** An invite as the gateway lists it (never its token). */
export interface Invite {
  id: string;
  email: string | null;
  createdAt: string;
  expiresAt: string;
  status: string;
}

/** Options of `runInvitesCreate()`. */
export interface InvitesCreateOptions extends SignedInOptions {
  /** The only address that may use the invite. */
  email?: string | undefined;
  /** Days the link stays valid, 1 to 90 (as typed); default the gateway's 7. */
  days?: string | number | undefined;
  json?: boolean | undefined;
}

function parseDays(days: string | number | undefined): number | undefined {
  if (days === undefined) return undefined;
  const value = typeof days === 'number' ? days : Number(days.trim());
  if (!Number.isInteger(value) || value < 1 || value > 90 || String(days).trim() === '') {
    throw new CliError(`--days must be a whole number of days from 1 to 90, got "${days}"`, {
      exitCode: 2,
    });
  }
  return value;
}

/**
 * `gateway invites create`: makes a single-use sign-up link (`POST /api/invites`) and prints
 * it; it is shown only this once. Admins only.
 *
 * @throws CliError: bad `--days` (2), not an admin (4), sign-up closed (1).
 */
export async function runInvitesCreate(
  options: InvitesCreateOptions,
): Promise<{ invite: Invite; url: string }> {
  const { io } = options;
  const expiresInDays = parseDays(options.days);
  const api = await signedInApi(options);
  const answer = await api.call({
    method: 'POST',
    path: '/api/invites',
    body: {
      ...(options.email === undefined ? {} : { email: options.email }),
      ...(expiresInDays === undefined ? {} : { expiresInDays }),
    },
    schema: inviteCreated,
  });
  if (options.json) {
    printJson(io, answer);
  } else {
    const who = answer.invite.email === null ? 'anyone' : answer.invite.email;
    io.stdout.write(
      `${createColors(io).green('✓')} Invite for ${who}, valid once until ${answer.invite.expiresAt} (shown only now):\n${answer.url}\n`,
    );
  }
  return answer;
}

/** Options of `runInvitesList()`. */
export interface InvitesListOptions extends SignedInOptions {
  json?: boolean | undefined;
}

/** `gateway invites list`: every invite, newest first (`GET /api/invites`). Admins only. */
export async function runInvitesList(options: InvitesListOptions): Promise<Invite[]> {
  const { io } = options;
  const api = await signedInApi(options);
  const { invites } = await api.call({ method: 'GET', path: '/api/invites', schema: inviteList });
  if (options.json) {
    printJson(io, { invites });
    return invites;
  }
  printTable(
    io,
    ['ID', 'EMAIL', 'STATUS', 'EXPIRES'],
    invites.map((invite) => [
      invite.id,
      invite.email ?? '(anyone)',
      invite.status,
      invite.expiresAt,
    ]),
  );
  return invites;
}

/** Options of `runInvitesRevoke()`. */
export interface InvitesRevokeOptions extends SignedInOptions {
  id: string;
  json?: boolean | undefined;
}

/**
 * `gateway invites revoke <id>`: the link stops working at once (`DELETE /api/invites/:id`).
 *
 * @throws CliError: no such invite or already used (1), not an admin (4).
 */
export async function runInvitesRevoke(options: InvitesRevokeOptions): Promise<string[]> {
  const { io } = options;
  const api = await signedInApi(options);
  const answer = await api.call({
    method: 'DELETE',
    path: `/api/invites/${encodeURIComponent(options.id)}`,
    schema: deleted,
    notFoundHint: 'see `gateway invites list`',
  });
  if (options.json) printJson(io, answer);
  else
    io.stdout.write(
      `${createColors(io).green('✓')} Revoked invite ${options.id}; its link no longer works\n`,
    );
  return answer.deleted;
}
