import { APP_CSS } from '../../lib/dashboard/assets.js';

// WCAG 2.x relative luminance and contrast ratio of two #rrggbb colours.
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** The custom properties of the first `:root{...}` after `from` in the stylesheet. */
function vars(from: number): Record<string, string> {
  const block = /:root\{([^}]*)\}/.exec(APP_CSS.slice(from))![1]!;
  return Object.fromEntries([...block.matchAll(/--([a-z]+):(#[0-9a-f]{6})/g)].map((m) => [m[1]!, m[2]!]));
}

const schemes = {
  light: { vars: vars(0), surfaces: { page: 'bg', card: '#ffffff' } },
  dark: { vars: vars(APP_CSS.indexOf('prefers-color-scheme: dark')), surfaces: { page: 'bg', card: '#1c212b' } },
};

describe('dashboard colours meet WCAG AA', () => {
  for (const [scheme, { vars: v, surfaces }] of Object.entries(schemes)) {
    it(`${scheme}: body text >= 4.5:1 on page and card backgrounds`, () => {
      const failing: string[] = [];
      for (const [surface, bgRef] of Object.entries(surfaces)) {
        const bg = bgRef.startsWith('#') ? bgRef : v[bgRef]!;
        for (const text of ['fg', 'muted', 'link', 'ok', 'bad', 'warn']) {
          const ratio = contrast(v[text]!, bg);
          if (ratio < 4.5) failing.push(`--${text} ${v[text]} on ${surface} ${bg}: ${ratio.toFixed(2)}`);
        }
      }
      expect(failing).toEqual([]);
    });
  }

  it('dark: chart lines and legend keys >= 3:1 on the chart background (large/graphics)', () => {
    const dark = APP_CSS.slice(APP_CSS.indexOf('prefers-color-scheme: dark'));
    const series = ['p50', 'p90', 'p99', 'age', 'lag'].map((k) => [k, new RegExp(`\\.mchart \\.${k}\\{stroke:(#[0-9a-f]{6})`).exec(dark)?.[1] ?? new RegExp(`\\.mchart \\.${k}\\{stroke:(#[0-9a-f]{6})`).exec(APP_CSS)![1]!] as const);
    const failing = series.map(([k, c]) => [k, c, contrast(c, '#1c212b')] as const).filter(([, , r]) => r < 3).map(([k, c, r]) => `${k} ${c}: ${r.toFixed(2)}`);
    expect(failing).toEqual([]);
  });

  it('the gauge charts\' legend text (age, lag) >= 4.5:1 on the chart card, light and dark', () => {
    const darkAt = APP_CSS.indexOf('prefers-color-scheme: dark');
    const keyColour = (css: string, k: string): string => new RegExp(`\\.key\\.${k}\\{color:(#[0-9a-f]{6})`).exec(css)![1]!;
    const failing = (['age', 'lag'] as const).flatMap((k) => [
      ['light', k, keyColour(APP_CSS.slice(0, darkAt), k), contrast(keyColour(APP_CSS.slice(0, darkAt), k), '#ffffff')] as const,
      ['dark', k, keyColour(APP_CSS.slice(darkAt), k), contrast(keyColour(APP_CSS.slice(darkAt), k), '#1c212b')] as const,
    ]).filter(([, , , r]) => r < 4.5);
    expect(failing).toEqual([]);
  });
});
