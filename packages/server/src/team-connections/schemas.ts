import {
  teamConnectionCreatedSchema,
  teamConnectionItemSchema,
  teamConnectionListSchema,
} from '@gateway/sdk/contract';
import { z } from 'zod';
import { connectionFields } from '../connections/schemas.js';

/** Body of `POST /api/team/connections`. */
export const createTeamConnectionBody = z
  .object({
    ...connectionFields,
    toolId: connectionFields.toolId.meta({
      description: 'The tool (auth provider id) the secret serves, e.g. `weather`',
    }),
  })
  .strict();

export { teamConnectionCreatedSchema, teamConnectionItemSchema, teamConnectionListSchema };
