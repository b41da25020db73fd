// A title's poster. Posters come from the service's image base; while one loads, and when it cannot load
// (or the title has none), a block in the title's own colour with its name stands in, so a row of
// posters never shows broken images.
import { useState } from 'react';

export type PosterTitle = { name: string; posterUrl?: string | undefined; posterColor?: string | undefined };

/**
 * A colour of the title's own when the API gives none with it (shapes that carry only a poster path):
 * one of 24 hues chosen by its name, so the same title always has the same colour.
 */
function colourOfName(name: string): string {
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
  const hue = (hash % 24) * 15;
  return hslToHex(hue, 0.45, 0.38);
}

function hslToHex(h: number, s: number, l: number): string {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)))));
  return `#${[f(0), f(8), f(4)].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

/** Black or white, whichever reads better on `hex` (one of them always reaches 4.5:1). */
function textOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) ? '#000' : '#fff';
}

export function Poster({ title, size = 'md' }: { title: PosterTitle; size?: 'sm' | 'md' | 'lg' }) {
  const [failed, setFailed] = useState(false);
  const colour = /^#[0-9a-f]{6}$/i.test(title.posterColor ?? '') ? title.posterColor! : colourOfName(title.name);
  const style = { backgroundColor: colour, color: textOn(colour) };
  if (!title.posterUrl || failed) {
    return (
      <div className={`poster poster-${size} poster-placeholder`} style={style} aria-hidden="true">
        <span>{title.name}</span>
      </div>
    );
  }
  return <img className={`poster poster-${size}`} style={style} src={title.posterUrl} alt="" loading="lazy" decoding="async" onError={() => setFailed(true)} />;
}
