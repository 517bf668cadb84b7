// The plugins compose.yaml's gateways load: the example notes plugin, mounted at
// /app/plugins/notes. Replace it with yours (docs/deploy.md#plugins).
export default {
  plugins: ['./plugins/notes/index.ts'],
};
