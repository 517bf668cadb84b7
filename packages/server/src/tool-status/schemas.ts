import {
  pluginStatusSchema,
  providerStateSchema,
  providerStatusSchema,
  statusConnectionSchema,
  statusToolSchema,
  toolStatusSchema,
} from '@gateway/sdk/contract';
import type { z } from 'zod';

export type ToolStatus = z.infer<typeof toolStatusSchema>;
export type ProviderStatus = z.infer<typeof providerStatusSchema>;

export {
  pluginStatusSchema,
  providerStateSchema,
  providerStatusSchema,
  statusConnectionSchema,
  statusToolSchema,
  toolStatusSchema,
};
