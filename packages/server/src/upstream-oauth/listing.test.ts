import { describe, expect, it } from 'vitest';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import { startOAuthUpstreamWorld } from '#test/upstream-oauth/oauth-world.js';

// Issue 16: an oauth source's tool list is refreshed on a schedule and on `list_changed` like
// any other source's, with a connected user's token (the gateway has none of its own for it).

/** The names of the source's tools in a tools/list answer (the first user, an admin, sees all). */
const secureTools = (answer: { tools: { name: string }[] }) =>
  answer.tools.map((tool) => tool.name).filter((name) => name.startsWith('secure.'));

describe("an oauth source's tool list", () => {
  it("is fetched again without anyone connecting, with a connected user's token", async () => {
    const world = await startOAuthUpstreamWorld();
    expect((await world.register()).status).toBe(201);
    const upstreams = world.mcp.gateway.services.upstreams;

    // Nobody connected: nothing to list with, and the upstream is not asked.
    const registered = world.upstream.seen.length;
    await upstreams.refresh('secure');
    expect(world.upstream.seen.length).toBe(registered);

    const alice = await world.signUp('alice');
    await world.connect(alice, 'alice-sub');
    const onAlice = await connectV1(world.mcp.url, alice.mcpToken);
    await expect
      .poll(async () => secureTools(await onAlice.client.listTools()))
      .toEqual(['secure.whoami']);

    // The upstream gains a tool; the next refresh (scheduled, or its list_changed) finds it.
    world.upstream.extraTools.push('later');
    const before = world.upstream.seen.length;
    await upstreams.refresh('secure');
    await expect
      .poll(async () => secureTools(await onAlice.client.listTools()))
      .toEqual(['secure.later', 'secure.whoami']);
    const asked = world.upstream.seen.slice(before);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((seen) => seen.sub === 'alice-sub')).toBe(true);

    // Alice's token refused from now on: the list stays as it is, and nothing is mounted twice.
    world.upstream.refusedSubjects.add('alice-sub');
    world.upstream.extraTools.push('never');
    await upstreams.refresh('secure');
    expect(secureTools(await onAlice.client.listTools())).toEqual([
      'secure.later',
      'secure.whoami',
    ]);
  });
});
