import { isRecord } from '../json/is-record.js';

/**
 * How the resources and prompts of upstreams are named to clients, reversibly: a resource URI
 * (and a template) is `<namespace>+<URI as the upstream gives it>`, a prompt `<namespace>.<name>`.
 * A namespace holds only `a-z`, `0-9` and `_`, so the first `+` (or `.`) ends it.
 *
 * @example
 * namespacedUri('ev', 'demo://resource/static/document/architecture.md');
 * // 'ev+demo://resource/static/document/architecture.md'
 */
export function namespacedUri(namespace: string, uri: string): string {
  return `${namespace}+${uri}`;
}

/** A namespaced URI split into its namespace and the upstream's URI; undefined when it is none. */
export function splitUri(uri: string): { namespace: string; name: string } | undefined {
  return split(uri, '+');
}

/** `<namespace>.<name>`: a prompt's name as served. */
export function namespacedPrompt(namespace: string, name: string): string {
  return `${namespace}.${name}`;
}

/** A served prompt name split into its namespace and the upstream's name. */
export function splitPrompt(name: string): { namespace: string; name: string } | undefined {
  return split(name, '.');
}

const NAMESPACE = /^[a-z0-9_]{1,64}$/;

function split(value: string, mark: string): { namespace: string; name: string } | undefined {
  const at = value.indexOf(mark);
  if (at <= 0) return undefined;
  const namespace = value.slice(0, at);
  const name = value.slice(at + 1);
  if (!NAMESPACE.test(namespace) || name.length === 0) return undefined;
  return { namespace, name };
}

/**
 * `content` (a tool result's or a prompt message's blocks) with the URIs of resource links and
 * embedded resources namespaced, so a client reads them through the gateway. The array is copied
 * only when a block changes; other blocks are kept as they are.
 */
export function namespacedContent<T>(namespace: string, content: readonly T[]): T[] {
  let changed: T[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const block = content[i] as T;
    const renamed = namespacedBlock(namespace, block);
    if (renamed !== block) {
      changed ??= content.slice();
      changed[i] = renamed;
    }
  }
  return changed ?? (content as T[]);
}

function namespacedBlock<T>(namespace: string, block: T): T {
  if (!isRecord(block)) return block;
  if (block.type === 'resource_link' && typeof block.uri === 'string') {
    return { ...block, uri: namespacedUri(namespace, block.uri) };
  }
  if (
    block.type === 'resource' &&
    isRecord(block.resource) &&
    typeof block.resource.uri === 'string'
  ) {
    return {
      ...block,
      resource: { ...block.resource, uri: namespacedUri(namespace, block.resource.uri) },
    };
  }
  return block;
}
