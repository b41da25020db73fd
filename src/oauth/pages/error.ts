// The provider's error page (e.g. an unknown client or an unregistered redirect URI: nowhere to
// redirect to, so the error is shown to the user instead).
import type { Response } from 'express';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { escapeHtml, page, PAGE_HEADERS } from './layout.ts';

export async function renderErrorPage(ctx: KoaContextWithOIDC, out: { error: string; error_description?: string | undefined }): Promise<void> {
  for (const [k, v] of Object.entries(PAGE_HEADERS)) ctx.set(k, v);
  ctx.body = errorHtml(out.error, out.error_description ?? '', (ctx.req as { id?: string }).id);
}

function errorHtml(code: string, message: string, requestId: string | undefined): string {
  return page(
    'Something went wrong',
    `<p><strong>${escapeHtml(code)}</strong></p><p>${escapeHtml(message)}</p>` +
      (requestId ? `<p><small>Request id: <code>${escapeHtml(requestId)}</code></small></p>` : ''),
  );
}

/** The same page from Express, for errors found before the provider is asked. */
export function errorPage(res: Response, status: number, code: string, message: string, requestId: string | undefined): void {
  res.status(status).set(PAGE_HEADERS).send(errorHtml(code, message, requestId));
}
