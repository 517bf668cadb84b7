/** Who is calling: resolved once per request, before any route runs. */
export type Caller =
  | { kind: 'anonymous' }
  /** A trusted caller holding SERVICE_API_SECRET: may act for any user. */
  | { kind: 'service' }
  | { kind: 'user'; userId: string; isAdmin: boolean; via: 'session' | 'cli_token' }
  | { kind: 'service_account'; serviceAccountId: string; roleId: string };

/** A signed-in person's caller, or undefined. */
export function callerUserId(caller: Caller): string | undefined {
  return caller.kind === 'user' ? caller.userId : undefined;
}
