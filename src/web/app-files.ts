// The first-party web app's files (packages/web, built into its dist/ by `npm install`): the hashed
// scripts and styles under /assets with immutable caching (a new build has new names; their Brotli or
// gzip copy when the browser takes one), and the app's
// page for each of its URLs, never cached, with the image base filled in and a Content-Security-Policy
// that lets it load scripts and styles from this origin only, talk only to this origin, and show images
// from here and from IMAGE_BASE_URL. Other paths are left to the routes after this one (the API's 404).
import fs from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';
import { ApiError } from '../core/errors.ts';
import { escapeHtml, htmlPageHeaders } from '../oauth/pages/layout.ts';
import { strictRouter } from '../rest/routing.ts';

const DIST = path.resolve(import.meta.dirname, '../../packages/web/dist');

/** The app's URLs (its router's paths, packages/web/src/app.tsx), and the sign-in's return. */
const APP_PATHS = [
  '/',
  '/auth/callback',
  '/title/:type/:id',
  '/history',
  '/lists',
  '/lists/:id',
  '/watchlist',
  '/collection',
  '/calendar',
  '/stats',
  '/notifications',
  '/settings',
  '/u/:username',
];

const IMMUTABLE = 'public, max-age=31536000, immutable';

function appPage(imageBaseUrl: string): string | undefined {
  let html: string;
  try {
    html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  } catch {
    return undefined;
  }
  return html.replace('<meta name="image-base" content="">', `<meta name="image-base" content="${escapeHtml(imageBaseUrl)}">`);
}

/** Only names the build wrote (no path of the client's reaches the file system beyond one folder). */
const ASSET_NAME = /^[A-Za-z0-9_.-]+\.(js|css)$/;

/** The build's Brotli or gzip copy of an asset (vite.config.ts writes both), when the browser takes it. */
function compressedCopy(built: ReadonlySet<string>, file: string, acceptEncoding: string): { name: 'br' | 'gzip'; path: string } | undefined {
  if (!ASSET_NAME.test(file) || file.startsWith('.')) return undefined;
  const accepted = new Set(
    acceptEncoding
      .split(',')
      .map((part) => part.trim().split(/\s*;\s*/))
      .filter(([, q]) => !q || !/^q=0(\.0*)?$/i.test(q))
      .map(([name]) => name!.toLowerCase()),
  );
  const accepts = (name: string) => accepted.has(name);
  for (const [name, ext] of [['br', 'br'], ['gzip', 'gz']] as const) {
    if (accepts(name) && built.has(`${file}.${ext}`)) return { name, path: path.join(DIST, 'assets', `${file}.${ext}`) };
  }
  return undefined;
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Media Tracker</title></head>
<body><main><h1>The web app is not built</h1><p>Run <code>npm install</code> in the service's folder, which builds it, and start the service again. The account pages are at <a href="/account">/account</a>.</p></main></body></html>`;

export function appFiles(opts: { imageBaseUrl: string }): Router {
  const r = strictRouter();
  const page = appPage(opts.imageBaseUrl);
  // The build's files, read once: they do not change while the service runs.
  const built = new Set(page === undefined ? [] : fs.readdirSync(path.join(DIST, 'assets')));
  const imageOrigin = new URL(opts.imageBaseUrl).origin;
  const headers = htmlPageHeaders(
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: ${imageOrigin}; connect-src 'self'; manifest-src 'self'; form-action 'self'`,
  );
  for (const route of APP_PATHS) {
    r.get(route, (_req, res) => {
      if (page === undefined) return void res.status(503).set(headers).send(NOT_BUILT);
      res.set(headers).send(page);
    });
  }
  r.get('/assets/:file', (req, res, next) => {
    const file = String(req.params.file);
    // A name the build did not write is this route's own 404 (a stale page asking for an old build's file).
    if (!built.has(file)) return next(new ApiError('not_found', 'No such file in this build of the web app'));
    const encoding = compressedCopy(built, file, String(req.headers['accept-encoding'] ?? ''));
    if (!encoding) return next();
    res.set({
      'Content-Type': file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
      'Content-Encoding': encoding.name,
      'Cache-Control': IMMUTABLE,
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
    });
    res.sendFile(encoding.path, (err) => err && next(err));
  });
  r.use(
    '/assets',
    express.static(path.join(DIST, 'assets'), {
      index: false,
      fallthrough: true,
      cacheControl: false,
      setHeaders: (res) => {
        res.setHeader('Cache-Control', IMMUTABLE);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Vary', 'Accept-Encoding');
      },
    }),
  );
  return r;
}
