// The MCP Inspector and conformance suite versions CI runs: the conformance step
// (scripts/mcp-conformance.mjs), the pack check's timed Inspector call
// (scripts/pack-check-projects.mjs): one version each, so npx installs each once into npm's cache.
export const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
export const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.16';
