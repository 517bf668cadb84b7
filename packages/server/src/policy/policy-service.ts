import { compilePatterns, type PathMatcher, type Role } from '@gateway/sdk/kernel';
import type { GatewayDatabase } from '../db/index.js';
import { Refusal } from '../errors/refusal.js';
import { ADMIN_ROLE_ID } from '../identity/index.js';
import {
  assignRoleRow,
  deleteRoleRow,
  findRoleRow,
  insertRole,
  listRoleRows,
  prepareRoleLookups,
  type RoleLookups,
  roleFromRow,
  type StoredRole,
  updateRoleRow,
} from '../identity/role-store.js';
import type { MountedTool, PluginCatalog } from '../registry/index.js';

/** Whose tools to resolve: a user id, or the role of a service account. */
export type ResolveSubject = string | { serviceAccountRoleId: string };

/** The tools a subject may see and call, with the role that decided it. */
export interface Resolution {
  role: Role;
  /** The allowed tools, sorted by path. Shared between callers: do not modify. */
  tools: readonly MountedTool[];
  /** The allowed tool at `path`; `undefined` when there is none or the role does not allow it. */
  tool(path: string): MountedTool | undefined;
}

/**
 * A change that may change who sees which tools: a role created, edited or deleted, or a user
 * given another role. Only changes made through this instance are announced.
 */
export type PolicyChange =
  | { kind: 'role'; roleId: string }
  | { kind: 'assignment'; userId: string };

/** Called after a {@link PolicyChange}. */
export type PolicyListener = (change: PolicyChange) => void;

interface ToolSet {
  tools: readonly MountedTool[];
  byPath?: Map<string, MountedTool>;
}

interface CacheEntry {
  /** The stored row the entry was built from: a different row is a different role. */
  name: string;
  patternsJson: string;
  role: Role;
  matcher: PathMatcher;
  catalogVersion: number;
  users?: ToolSet;
  serviceAccounts?: ToolSet;
}

/**
 * Roles and what they allow. A role's patterns are compiled once and the tools they allow are
 * cached per role id, until the role changes or the catalog mounts or unmounts tools.
 *
 * Each resolve still reads the subject's assignment and role row (two prepared primary-key
 * lookups): a role edited or assigned through another instance then shows at once, and an
 * unchanged row costs a string compare, not a recompile.
 *
 * @example
 * const policy = new PolicyService({ database, plugins: catalog, defaultRoleId: 'member' });
 * const { tools } = await policy.resolveForUser(userId);
 */
export class PolicyService {
  readonly #database: GatewayDatabase;
  readonly #catalog: PluginCatalog;
  readonly #defaultRoleId: string;
  readonly #lookups: RoleLookups;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #listeners = new Set<PolicyListener>();

  constructor(options: {
    database: GatewayDatabase;
    plugins: PluginCatalog;
    defaultRoleId: string;
  }) {
    this.#database = options.database;
    this.#catalog = options.plugins;
    this.#defaultRoleId = options.defaultRoleId;
    this.#lookups = prepareRoleLookups(options.database, options.defaultRoleId);
  }

  /** The role of users with none assigned. */
  get defaultRoleId(): string {
    return this.#defaultRoleId;
  }

  /** Every role, sorted by id. */
  async listRoles(): Promise<Role[]> {
    return (await listRoleRows(this.#database.db)).map(roleFromRow);
  }

  /** The role with this id. */
  async getRole(id: string): Promise<Role | undefined> {
    const row = await findRoleRow(this.#database.db, id);
    return row && roleFromRow(row);
  }

  /**
   * Creates a role (already validated with the sdk's `roleSchema`).
   *
   * @throws Refusal 409 when the id is taken.
   */
  async createRole(role: Role): Promise<Role> {
    if (!(await insertRole(this.#database.db, role))) {
      throw new Refusal(
        'conflict',
        `A role "${role.id}" already exists; update it with PUT /api/policy/roles/${role.id}`,
      );
    }
    this.#cache.delete(role.id);
    this.#changed({ kind: 'role', roleId: role.id });
    return copyRole(role);
  }

  /**
   * Replaces the name and patterns of role `id`; `role.id` is ignored, the path's id wins.
   *
   * @throws Refusal 404 when there is no such role.
   */
  async updateRole(id: string, role: Role): Promise<Role> {
    const updated = { id, name: role.name, patterns: [...role.patterns] };
    if (!(await updateRoleRow(this.#database.db, updated))) {
      throw new Refusal('not_found', `No role "${id}"`);
    }
    this.#cache.delete(id);
    this.#changed({ kind: 'role', roleId: id });
    return updated;
  }

  /**
   * Deletes a role; users assigned it fall back to the default role.
   *
   * @throws Refusal 409 for the admin role, the default role, or a role a service account
   * holds; 404 when there is no such role.
   */
  async deleteRole(id: string): Promise<void> {
    if (id === ADMIN_ROLE_ID) {
      throw new Refusal(
        'conflict',
        'The admin role cannot be deleted: it is what makes a user an admin',
      );
    }
    if (id === this.#defaultRoleId) {
      throw new Refusal(
        'conflict',
        `"${id}" is the default role (GATEWAY_DEFAULT_ROLE) of users with none assigned; choose another default role before deleting it`,
      );
    }
    const result = await deleteRoleRow(this.#database.db, id);
    if (!result.ok && result.problem === 'not_found')
      throw new Refusal('not_found', `No role "${id}"`);
    if (!result.ok && result.problem === 'service_accounts') {
      throw new Refusal(
        'conflict',
        `Role "${id}" is held by service accounts; give them another role first`,
        { serviceAccounts: result.serviceAccounts },
      );
    }
    this.#cache.delete(id);
    this.#changed({ kind: 'role', roleId: id });
  }

  /**
   * Assigns a role to a user.
   *
   * @throws Refusal 404 unknown user or role; 409 when it would take the admin role from the
   * last admin.
   */
  async assignRole(userId: string, roleId: string): Promise<{ userId: string; roleId: string }> {
    const result = await assignRoleRow(this.#database.db, userId, roleId, ADMIN_ROLE_ID);
    if (!result.ok) {
      switch (result.problem) {
        case 'user_not_found':
          throw new Refusal('not_found', `No user ${userId}`);
        case 'role_not_found':
          throw new Refusal('not_found', `No role "${roleId}"`);
        case 'last_admin':
          throw new Refusal('conflict', 'This is the last admin; make another user an admin first');
      }
    }
    this.#changed({ kind: 'assignment', userId });
    return { userId, roleId };
  }

  /**
   * The role that applies to a user: the assigned one, else the default role (with no patterns
   * when the default role does not exist).
   *
   * @throws Refusal 404 when there is no such user.
   */
  async roleOf(userId: string): Promise<Role> {
    return (await this.resolveForUser(userId)).role;
  }

  /**
   * The tools a user, or a service account's role, may see and call.
   *
   * @throws Refusal 404 when the user does not exist.
   */
  resolve(subject: ResolveSubject): Promise<Resolution> {
    return typeof subject === 'string'
      ? this.resolveForUser(subject)
      : this.resolveForServiceAccount(subject.serviceAccountRoleId);
  }

  /**
   * The tools a user may see and call: those their role's patterns match.
   *
   * @throws Refusal 404 when the user does not exist.
   */
  async resolveForUser(userId: string): Promise<Resolution> {
    const found = await this.#lookups.userRole(userId);
    if (found === undefined) throw new Refusal('not_found', `No user ${userId}`);
    return this.#resolution(found.role ?? emptyRole(found.roleId), 'users');
  }

  /**
   * The tools a user may see and call, from the row of the role that applies to them as the caller
   * just read it (null: the role does not exist, so none), rather than reading it again.
   */
  resolveForUserRole(roleId: string, row: StoredRole | null): Resolution {
    return this.#resolution(row ?? emptyRole(roleId), 'users');
  }

  /**
   * The tools a service account with role `roleId` may see and call: those the role's patterns
   * match and that allow service accounts (`serviceAccountAllowed`). A missing role allows none.
   */
  async resolveForServiceAccount(roleId: string): Promise<Resolution> {
    const row = await this.#lookups.role(roleId);
    return this.#resolution(row ?? emptyRole(roleId), 'serviceAccounts');
  }

  /**
   * Calls `listener` after every role created, edited or deleted and every role assignment made
   * through this instance (the MCP endpoint tells the affected sessions their tools changed).
   *
   * @returns a function that removes the listener.
   */
  onChange(listener: PolicyListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets every compiled role and resolved tool list (benchmarks, tests). */
  clearCache(): void {
    this.#cache.clear();
  }

  #changed(change: PolicyChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch {
        // A listener's failure must not fail the change that was already stored.
      }
    }
  }

  #resolution(row: StoredRole, audience: 'users' | 'serviceAccounts'): Resolution {
    const entry = this.#entry(row);
    let set = entry[audience];
    if (set === undefined) {
      const allowed = entry.matcher.filter(this.#catalog.tools(), (tool) => tool.path);
      const tools =
        audience === 'users' ? allowed : allowed.filter((tool) => tool.serviceAccountAllowed);
      set = { tools: Object.freeze(tools) };
      entry[audience] = set;
    }
    const toolSet = set;
    return {
      role: entry.role,
      tools: toolSet.tools,
      tool(path) {
        toolSet.byPath ??= new Map(toolSet.tools.map((tool) => [tool.path, tool]));
        return toolSet.byPath.get(path);
      },
    };
  }

  #entry(row: StoredRole): CacheEntry {
    const version = this.#catalog.version;
    const cached = this.#cache.get(row.id);
    if (cached !== undefined && cached.patternsJson === row.patterns && cached.name === row.name) {
      if (cached.catalogVersion !== version) {
        cached.catalogVersion = version;
        delete cached.users;
        delete cached.serviceAccounts;
      }
      return cached;
    }
    const parsed = roleFromRow(row);
    // Handed to every caller (ctx.role of tool handlers): nobody may edit the cached copy.
    const role = Object.freeze({ ...parsed, patterns: Object.freeze(parsed.patterns) as string[] });
    const entry: CacheEntry = {
      name: row.name,
      patternsJson: row.patterns,
      role,
      matcher: compilePatterns(role.patterns),
      catalogVersion: version,
    };
    this.#cache.set(row.id, entry);
    return entry;
  }
}

function emptyRole(id: string): StoredRole {
  return { id, name: id, patterns: '[]' };
}

function copyRole(role: Role): Role {
  return { id: role.id, name: role.name, patterns: [...role.patterns] };
}
