import { isRecord } from '../json/is-record.js';

/**
 * What an upstream offers besides tools, as the gateway federates it: resources (and whether
 * they can be subscribed to, whether their list announces changes), prompts, completions. Read
 * from the upstream's server capabilities; anything else they hold is left out.
 */
export interface Offers {
  resources?: { subscribe: boolean; listChanged: boolean };
  prompts?: { listChanged: boolean };
  completions?: true;
}

/**
 * The {@link Offers} in an upstream's server capabilities, or in offers as stored (anything not an
 * object: none).
 */
export function offersOf(capabilities: unknown): Offers {
  if (!isRecord(capabilities)) return {};
  const { resources, prompts, completions } = capabilities;
  return {
    ...(isRecord(resources)
      ? {
          resources: {
            subscribe: resources.subscribe === true,
            listChanged: resources.listChanged === true,
          },
        }
      : {}),
    ...(isRecord(prompts) ? { prompts: { listChanged: prompts.listChanged === true } } : {}),
    // `{}` in capabilities, `true` as stored.
    ...(isRecord(completions) || completions === true ? { completions: true as const } : {}),
  };
}

/** `json` as stored in `upstream_tools.capabilities` (null or unreadable: nothing offered). */
export function storedOffers(json: string | null | undefined): Offers {
  if (json === null || json === undefined) return {};
  try {
    return offersOf(JSON.parse(json));
  } catch {
    return {};
  }
}

/** Whether `offers` holds anything to federate. */
export function offersAnything(offers: Offers): boolean {
  return (
    offers.resources !== undefined ||
    offers.prompts !== undefined ||
    offers.completions !== undefined
  );
}
