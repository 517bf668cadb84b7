// The server's test helpers (`@gateway/server/testing`) start oidc-provider, which ships no types;
// the server declares the little they use, and this brings that declaration into the CLI's build.
/// <reference path="../../../server/test/auth/oidc-provider.d.ts" />
