import { count } from './format.js';
import { html, type SafeHtml } from './escape.js';

export interface MinutePoint {
  readonly at: number;
  readonly completed: number;
  readonly failed: number;
}

const W = 180;
const H = 34;

/** The last hour as 60 bars: completed (green) with failed attempts stacked on top (red). */
export function throughputChart(minutes: readonly MinutePoint[]): SafeHtml {
  const max = Math.max(1, ...minutes.map((m) => m.completed + m.failed));
  const bw = W / Math.max(minutes.length, 1);
  const bars = minutes.map((m, i) => {
    const x = (i * bw).toFixed(1);
    const hc = (m.completed / max) * (H - 2);
    const hf = (m.failed / max) * (H - 2);
    const label = `${new Date(m.at).toISOString().slice(11, 16)} UTC: ${count(m.completed)} completed, ${count(m.failed)} failed attempts`;
    return html`<g><title>${label}</title><rect x="${x}" y="${(H - hc).toFixed(1)}" width="${(bw - 0.6).toFixed(1)}" height="${hc.toFixed(1)}" class="ok"/><rect x="${x}" y="${(H - hc - hf).toFixed(1)}" width="${(bw - 0.6).toFixed(1)}" height="${hf.toFixed(1)}" class="bad"/></g>`;
  });
  const done = minutes.reduce((s, m) => s + m.completed, 0);
  const failed = minutes.reduce((s, m) => s + m.failed, 0);
  return html`<div class="chart"><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="jobs per minute, last hour"><line x1="0" y1="${H - 0.5}" x2="${W}" y2="${H - 0.5}" class="axis"/>${bars}</svg><span class="legend"><b class="ok">${count(done)}</b> done · <b class="${failed ? 'bad' : ''}" title="failed attempts: each retried or dead-lettered attempt counts once, so a job that failed 3 times counts 3">${count(failed)}</b> failed attempts</span></div>`;
}
