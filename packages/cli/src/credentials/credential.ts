import { z } from 'zod';

/** What `gateway login` keeps for one gateway. */
export const credentialSchema = z.object({
  /** The gateway's base URL, e.g. `https://gateway.example.com`. */
  url: z.string().min(1),
  /** The CLI token, `gw_cli_...`. */
  token: z.string().min(1),
  /** The user the token acts for (routes take it as `userId`). */
  userId: z.string().min(1),
  /** The token's id, to revoke it at `gateway logout`. */
  tokenId: z.string().min(1).optional(),
});

/** A stored sign-in: the gateway, the token and whose it is. */
export type Credential = z.infer<typeof credentialSchema>;
