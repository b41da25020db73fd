// A placeholder colour for a title's poster, shown while the image loads and behind text. It is derived
// from a hash of the poster path (or the name when there is no poster), so every import of the same title
// gives the same colour without downloading or decoding the image.

export type PosterColor = { color: string; isDark: boolean };

/** FNV-1a, 32 bits: tiny, stable across runs and platforms, good enough spread for a colour. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // One extra avalanche round so similar paths (e.g. differing in the last character) differ in every byte.
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

/** WCAG relative luminance of an sRGB colour given as 0..255 channels. */
export function relativeLuminance(r: number, g: number, b: number): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function posterColor(posterPath: string | undefined, name: string): PosterColor {
  const h = fnv1a(posterPath ? posterPath : name);
  const r = (h >>> 16) & 0xff;
  const g = (h >>> 8) & 0xff;
  const b = h & 0xff;
  const hex = (c: number) => c.toString(16).padStart(2, '0');
  return { color: `#${hex(r)}${hex(g)}${hex(b)}`, isDark: relativeLuminance(r, g, b) < 0.5 };
}
