import { defineConfig } from 'tsup';

// Dependencies (@gateway/sdk, zod) stay external: the gateway that loads the plugin provides them.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  platform: 'node',
});
