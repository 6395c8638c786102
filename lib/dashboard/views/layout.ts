import { html, seg, type SafeHtml } from './escape.js';

export interface PageFrame {
  /** Mount path, e.g. '/queues'. */
  readonly base: string;
  readonly title: string;
  /** Breadcrumbs after "Queues": [label, href?]. */
  readonly crumbs: readonly (readonly [string, string?])[];
  readonly csrf: string;
  readonly readOnly: boolean;
  readonly refreshSeconds: number;
  /** Where actions of this page are posted. */
  readonly endpoint?: string;
  /** Where the page goes after removing its job. */
  readonly back?: string;
}

/** The page around every view: header, breadcrumbs, live-refresh region, assets served by the module. */
export function layout(frame: PageFrame, body: SafeHtml): SafeHtml {
  const root = frame.base === '/' ? '' : frame.base;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="spool-csrf" content="${frame.csrf}">
<meta name="spool-refresh" content="${frame.refreshSeconds}">
<title>${frame.title} · Spool</title>
<link rel="stylesheet" href="${root}/_assets/app.css">
<script src="${root}/_assets/app.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="${root || '/'}">Spool</a>
  <nav class="crumbs"><a href="${root || '/'}">Queues</a>${frame.crumbs.map(([label, href]) => (href ? html` <span>/</span> <a href="${href}">${label}</a>` : html` <span>/</span> <strong>${label}</strong>`))}</nav>
  <nav class="pages"><a href="${root}/_workers">Workers</a> <a href="${root}/_redis">Redis</a></nav>
  <span class="mode">${frame.readOnly ? html`<span class="badge muted">read-only</span>` : ''}<span id="live" class="live" hidden>live</span></span>
</header>
<div id="flash" class="flash" hidden></div>
<main id="content" data-endpoint="${frame.endpoint ?? ''}" data-back="${frame.back ?? ''}">
${body}
</main>
</body>
</html>`;
}

/** Link to a queue page (optionally a state and query). */
export function queueHref(base: string, connection: string, queue: string, rest = ''): string {
  return `${base === '/' ? '' : base}/${seg(connection)}/${seg(queue)}${rest}`;
}

export function jobHref(base: string, connection: string, queue: string, id: string): string {
  return queueHref(base, connection, queue, `/jobs/${seg(id)}`);
}

/** A button the script turns into a confirmed POST of `action` (JSON of the data-* fields). */
export function actionButton(label: string, confirm: string, fields: Record<string, string | number>, style = '', endpoint?: string): SafeHtml {
  return html`<button type="button" class="act ${style}" data-action="${JSON.stringify(fields)}" data-confirm="${confirm}"${endpoint ? html` data-endpoint="${endpoint}"` : ''}>${label}</button>`;
}
