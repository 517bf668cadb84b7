// The MCP Inspector and conformance suite versions CI runs: the conformance step
// (scripts/mcp-conformance.mjs), the pack check's timed Inspector call
// (scripts/pack-check-projects.mjs), and the prefetch that downloads them during the test step
// (scripts/ci-prefetch.mjs), so npx installs each once.
export const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
export const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.16';
