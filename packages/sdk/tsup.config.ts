import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'contract/index': 'src/contract/index.ts',
    'kernel/index': 'src/kernel/index.ts',
    'testing/index': 'src/testing/index.ts',
  },
  format: ['esm'],
  dts: { compilerOptions: { paths: {} } },
  clean: true,
  target: 'node22',
  platform: 'node',
  removeNodeProtocol: false,
  external: ['zod'],
});
