// The API reference page at /docs: Swagger UI served from the installed package (nothing is fetched
// from elsewhere at run time), showing both OpenAPI documents.
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';
import { htmlPageHeaders } from '../oauth/pages/layout.ts';
import { strictRouter } from './routing.ts';
import { PLATFORM_BASE, PUBLIC_BASE } from './envelope.ts';

const uiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Media Tracking API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="stylesheet" href="/docs/theme.css">
</head>
<body>
  <div id="ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

// Kept out of the page so a strict Content-Security-Policy (no inline scripts) holds.
const init = `window.ui = SwaggerUIBundle({
  urls: [
    { url: '${PLATFORM_BASE}/openapi.json', name: 'Platform API' },
    { url: '${PUBLIC_BASE}/openapi.json', name: 'Public API' }
  ],
  dom_id: '#ui',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  // Authorize runs the authorization code flow with PKCE (the only one the server allows), back to the
  // installed redirect page; the app must have registered that redirect URI.
  oauth2RedirectUrl: window.location.origin + '/docs/assets/oauth2-redirect.html',
  persistAuthorization: false
});
window.ui.initOAuth({ usePkceWithAuthorizationCodeGrant: true });`;

// Swagger UI's colours in the introduction (the getting started), raised to WCAG AA contrast (4.5:1):
// its links, the version badges and the document's URL are lighter than that on white.
const theme = `.swagger-ui .info a,.swagger-ui .info .url{color:#1d5fc2}
.swagger-ui .info .title small{background:#4b5260}
.swagger-ui .info .title small.version-stamp{background:#3b6e08}`;

// Swagger UI's scripts and styles come from this origin; it styles elements inline and draws icons as
// data: images; it fetches the documents and the token endpoint on this origin.
const DOCS_HEADERS = htmlPageHeaders("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'");

export function docsPage(): Router {
  const r = strictRouter();
  r.get('/docs', (_req, res) => {
    res.set(DOCS_HEADERS).send(page);
  });
  r.get('/docs/theme.css', (_req, res) => {
    res.type('text/css').send(theme);
  });
  r.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(init);
  });
  // The package's own pages (the OAuth redirect page Authorize returns to, its demo index) are pages of
  // this origin too: the same headers.
  const pageHeaders = (res: express.Response, file: string) => {
    if (file.endsWith('.html')) res.set(DOCS_HEADERS);
  };
  r.use('/docs/assets', express.static(uiDir, { index: false, maxAge: '1d', setHeaders: pageHeaders }));
  return r;
}
