// The web app's build: React pages bundled by Vite into dist/ with hashed file names (the service serves
// dist/assets/ with immutable caching and index.html for every app URL, src/web/app-files.ts). The tRPC
// client is taken from the client package's sources, so the router's types reach the pages with no build
// of that package and no generated code. Pages other than the home page load as their own chunks;
// scripts and styles also get compressed copies.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * Writes a Brotli and a gzip copy beside each script and style sheet, once at build time, so the service
 * sends them to browsers that take them without compressing on every request (src/web/app-files.ts).
 */
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    writeBundle(options) {
      const dir = path.join(options.dir ?? 'dist', 'assets');
      for (const name of fs.readdirSync(dir)) {
        if (!/\.(js|css)$/.test(name)) continue;
        const file = path.join(dir, name);
        const data = fs.readFileSync(file);
        fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } }));
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), precompress()],
  resolve: { alias: { '@media-tracking/client': path.resolve(import.meta.dirname, '../client/src/index.ts') } },
  build: { outDir: 'dist', assetsDir: 'assets', target: 'es2022', reportCompressedSize: false, chunkSizeWarningLimit: 400 },
  logLevel: 'warn',
});
