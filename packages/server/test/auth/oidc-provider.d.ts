// oidc-provider ships no types; this declares the little the interop tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface KoaContext {
    path: string;
    method: string;
    status: number;
    body: unknown;
    oidc?: { params?: Record<string, unknown> };
    req: IncomingMessage;
    request: { body?: unknown };
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    on(event: string, listener: (ctx: KoaContext, ...rest: unknown[]) => void): void;
  }
}
