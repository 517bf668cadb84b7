/**
 * A TCP port on 127.0.0.1 for a server that binds it later, picked below the kernel's ephemeral
 * range (see free-port.mjs).
 */
export function freePort(): Promise<number>;
