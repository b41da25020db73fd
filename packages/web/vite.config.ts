// The web app's build: React pages bundled by Vite into dist/ with hashed file names (the service serves
// dist/assets/ with immutable caching and index.html for every app URL, src/web/app-files.ts). The tRPC
// client is taken from the client package's sources, so the router's types reach the pages with no build
// of that package and no generated code. Pages other than the home page load as their own chunks.
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@media-tracking/client': path.resolve(import.meta.dirname, '../client/src/index.ts') } },
  build: { outDir: 'dist', assetsDir: 'assets', target: 'es2022', reportCompressedSize: false, chunkSizeWarningLimit: 400 },
  logLevel: 'warn',
});
