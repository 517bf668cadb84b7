/**
 * What an upstream says of its resources and prompts outside a call: a list changed, or a
 * resource it was asked to watch was updated (`uri` as the upstream names it).
 */
export type UpstreamNotice =
  | { kind: 'resources_changed' }
  | { kind: 'prompts_changed' }
  | { kind: 'resource_updated'; uri: string };
