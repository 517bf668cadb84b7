import { roleSchema } from '@gateway/sdk/kernel';
import { GatewayRefusal } from '../../api/api-error.js';
import { roleAssigned, roleCreated, roleList, roleUpdated } from '../../api/schemas.js';
import { type SignedInOptions, signedInApi } from '../../api/signed-in.js';
import { CliError } from '../../cli-error.js';
import { createColors } from '../../output/color.js';
import { printJson, printTable } from '../../output/table.js';

/** A role: which tool paths its holders may see and call. */
export interface Role {
  id: string;
  name: string;
  patterns: string[];
}

/** Options of `runRolesList()`. */
export interface RolesListOptions extends SignedInOptions {
  json?: boolean | undefined;
}

/** `gateway roles list`: every role with its tool-path patterns (`GET /api/policy/roles`). */
export async function runRolesList(options: RolesListOptions): Promise<Role[]> {
  const { io } = options;
  const api = await signedInApi(options);
  const { roles } = await api.call({ method: 'GET', path: '/api/policy/roles', schema: roleList });
  if (options.json) {
    printJson(io, { roles });
    return roles;
  }
  printTable(
    io,
    ['ID', 'NAME', 'PATTERNS'],
    roles.map((role) => [role.id, role.name, role.patterns.join(' ') || '(no tools)']),
  );
  return roles;
}

/** Options of `runRolesSet()`. */
export interface RolesSetOptions extends SignedInOptions {
  id: string;
  /** Default: the role's current name, or its id for a new role. */
  name?: string | undefined;
  /** Tool-path patterns (`*` one segment, `**` one or more); they replace the current ones. */
  patterns: readonly string[];
  json?: boolean | undefined;
}

/**
 * `gateway roles set <id>`: creates the role, or replaces its name and patterns
 * (`PUT /api/policy/roles/:id`, else `POST /api/policy/roles`). Admins only. The role is
 * checked here first, so a bad pattern is reported before anything is sent.
 *
 * @throws CliError: an invalid role (2), not an admin (4).
 */
export async function runRolesSet(
  options: RolesSetOptions,
): Promise<{ role: Role; created: boolean }> {
  const { io } = options;
  if (options.patterns.length === 0) {
    throw new CliError('Give the role at least one --pattern, e.g. --pattern "weather.**"', {
      exitCode: 2,
    });
  }
  const api = await signedInApi(options);
  let name = options.name;
  if (name === undefined) {
    const { roles } = await api.call({
      method: 'GET',
      path: '/api/policy/roles',
      schema: roleList,
    });
    name = roles.find((role) => role.id === options.id)?.name ?? options.id;
  }
  const parsed = roleSchema.safeParse({ id: options.id, name, patterns: [...options.patterns] });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.path.map(String).join('.');
      const value =
        issue.path[0] === 'patterns' ? ` ("${options.patterns[Number(issue.path[1])]}")` : '';
      return `${path}${value}: ${issue.message}`;
    });
    throw new CliError(`Not a valid role: ${problems.join('; ')}`, { exitCode: 2 });
  }
  const body = parsed.data;
  let role: Role;
  let created = false;
  try {
    ({ updated: role } = await api.call({
      method: 'PUT',
      path: `/api/policy/roles/${encodeURIComponent(body.id)}`,
      body,
      schema: roleUpdated,
    }));
  } catch (error) {
    if (!(error instanceof GatewayRefusal && error.status === 404)) throw error;
    ({ created: role } = await api.call({
      method: 'POST',
      path: '/api/policy/roles',
      body,
      schema: roleCreated,
    }));
    created = true;
  }
  if (options.json) printJson(io, { role, created });
  else
    io.stdout.write(
      `${createColors(io).green('✓')} ${created ? 'Created' : 'Updated'} role ${role.id} (${role.name}): ${role.patterns.join(' ')}\n`,
    );
  return { role, created };
}

/** Options of `runRolesAssign()`. */
export interface RolesAssignOptions extends SignedInOptions {
  userId: string;
  roleId: string;
  json?: boolean | undefined;
}

/**
 * `gateway roles assign <userId> <roleId>`: gives a user a role
 * (`PUT /api/policy/users/:userId/role`). Admins only.
 *
 * @throws CliError: not an admin (4), no such user or role (1).
 */
export async function runRolesAssign(
  options: RolesAssignOptions,
): Promise<{ userId: string; roleId: string }> {
  const { io } = options;
  const api = await signedInApi(options);
  const answer = await api.call({
    method: 'PUT',
    path: `/api/policy/users/${encodeURIComponent(options.userId)}/role`,
    body: { roleId: options.roleId },
    schema: roleAssigned,
    notFoundHint: 'see `gateway roles list`',
  });
  if (options.json) printJson(io, answer);
  else
    io.stdout.write(
      `${createColors(io).green('✓')} User ${answer.userId} now has role ${answer.roleId}\n`,
    );
  return { userId: answer.userId, roleId: answer.roleId };
}
