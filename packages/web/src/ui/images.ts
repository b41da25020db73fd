// Image URLs from a path the API gives (posterPath, stillPath): the service's image base comes with the
// page (a meta tag the server fills in from IMAGE_BASE_URL), so the app contacts no host of its own choice.
const base = (document.querySelector('meta[name="image-base"]')?.getAttribute('content') ?? '').replace(/\/+$/, '');

/** `size`: w185 for rows and grids, w500 for a title page, w1280 for backdrops. */
export function imageUrl(path: string | null | undefined, size: 'w185' | 'w300' | 'w500' | 'w1280' = 'w185'): string {
  if (!path || !base) return '';
  return `${base}/${size}${path.startsWith('/') ? path : `/${path}`}`;
}
