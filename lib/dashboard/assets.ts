// The dashboard's only assets, served by the module itself (nothing is
// fetched from the internet): the stylesheet and the small script that
// confirms and posts actions and refreshes the page.

export const APP_CSS = `
:root{--fg:#1d2330;--muted:#5f6673;--line:#e3e6eb;--bg:#f6f7f9;--ok:#17703f;--bad:#c62828;--warn:#8f5600;--link:#1d4ed8}
*{box-sizing:border-box}
:focus-visible{outline:2px solid var(--link);outline-offset:2px}.top :focus-visible{outline-color:#fff}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link);text-decoration:none}a:hover{text-decoration:underline}
.top{display:flex;align-items:center;gap:16px;padding:10px 20px;background:#1d2330;color:#fff}
.top a{color:#fff}.brand{font-weight:700;letter-spacing:.5px}
.crumbs{flex:1}.crumbs span{color:#9aa3b2;margin:0 4px}
.live{font-size:12px;color:#b9f6ca}.live::before{content:"● "}
main{padding:16px 20px;max-width:1400px}
h1{font-size:20px;margin:4px 0 12px;display:flex;align-items:center;gap:8px}h2{font-size:15px;margin:18px 0 6px}
table.grid{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line)}
.grid th,.grid td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}
.grid th{font-size:12px;text-transform:uppercase;letter-spacing:.3px;color:var(--muted);background:#fafbfc}
.num{text-align:right!important;font-variant-numeric:tabular-nums}
td.zero a{color:#b8bec8}td.bad a,.bad{color:var(--bad)}td.warn{color:var(--warn)}
.qname{font-weight:600;font-size:15px}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;background:#eef0f3;color:var(--fg);font-weight:500}
.badge.ok{background:#e3f4ea;color:var(--ok)}.badge.bad{background:#fde8e8;color:var(--bad)}.badge.warn{background:#fff1d6;color:var(--warn)}.badge.muted{background:#eef0f3;color:var(--muted)}
.st-completed{background:#e3f4ea!important;color:var(--ok)!important}.st-failed{background:#fde8e8!important;color:var(--bad)!important}
.st-active{background:#e0ecff!important;color:#1d4ed8!important}.st-delayed,.st-waiting-children{background:#fff1d6!important;color:var(--warn)!important}
.chart{display:flex;align-items:center;gap:8px}.chart svg{background:#fafbfc;border:1px solid var(--line)}
.chart rect.ok{fill:#34a66a}.chart rect.bad{fill:#e05252}.chart .axis{stroke:#cfd4db}
.legend{font-size:12px;color:var(--muted);white-space:nowrap}.legend b.ok{color:var(--ok)}
.tabs{display:flex;gap:2px;border-bottom:1px solid var(--line);margin:8px 0 12px;flex-wrap:wrap}
.tabs a{padding:7px 12px;border:1px solid transparent;border-bottom:0;border-radius:6px 6px 0 0;color:var(--fg)}
.tabs a.on{background:#fff;border-color:var(--line);font-weight:600;margin-bottom:-1px}
.tabs .n{display:inline-block;min-width:20px;padding:0 6px;border-radius:9px;background:#eef0f3;font-size:12px;text-align:center}
.tabs a.bad .n{background:#fde8e8;color:var(--bad)}
.search{display:flex;gap:12px;align-items:end;flex-wrap:wrap;margin-bottom:10px}.search label{display:flex;flex-direction:column;font-size:12px;color:var(--muted)}
input{font:inherit;padding:4px 6px;border:1px solid #cfd4db;border-radius:4px}
button{font:inherit;padding:5px 12px;border:1px solid #b8c0cc;border-radius:5px;background:#fff;cursor:pointer}
button:hover{background:#f0f3f7}button:disabled{opacity:.45;cursor:default}
button.act{border-color:#1d4ed8;color:#1d4ed8}button.warn{border-color:var(--warn);color:var(--warn)}button.danger{border-color:var(--bad);color:var(--bad)}
button.small{padding:0 6px;font-size:12px}
.bulk,.qactions,.jactions{display:flex;gap:8px;flex-wrap:wrap;align-items:center;margin:8px 0}
.qhead,.jhead{display:flex;justify-content:space-between;align-items:center;flex-wrap:wrap;gap:10px}
.err{color:var(--bad)}.muted{color:var(--muted)}.detail{max-width:560px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.pager{display:flex;gap:16px;justify-content:center;margin:12px 0}
.empty{padding:24px;background:#fff;border:1px dashed var(--line);text-align:center;color:var(--muted)}
.notice,.flash{padding:8px 12px;border-radius:6px;background:#e0ecff;border:1px solid #b7ccf7;margin:10px 20px}
.flash.error{background:#fde8e8;border-color:#f2b8b8;color:var(--bad)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;background:#fff;border:1px solid var(--line);padding:10px 14px;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
pre{background:#fff;border:1px solid var(--line);padding:10px;overflow:auto;max-height:420px;margin:0;font:12px/1.5 ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;word-break:break-word}
section.error .errmsg{font-weight:600;color:var(--bad);margin:4px 0}pre.stack{color:#7a1f1f;background:#fff8f8}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:18px;border-left:1px solid var(--line)}ul.tree{border:0;padding:8px 12px;background:#fff;border:1px solid var(--line)}
ul.tree li{padding:2px 0}ul.tree li.current>strong{background:#fff1d6;padding:0 4px;border-radius:3px}
.pages a{margin-left:12px;color:#dfe5ee}.subnav{display:flex;gap:14px;margin:-4px 0 6px}.small{font-size:12px}
code.result{font:12px ui-monospace,Menlo,Consolas,monospace;color:var(--fg)}progress{vertical-align:middle;width:80px}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:10px;margin:8px 0 16px}
.figure{display:flex;flex-direction:column;background:#fff;border:1px solid var(--line);padding:10px 12px;border-radius:6px}.figure b{font-size:20px;margin:2px 0}
th.sortable a.sort{font-weight:400;text-transform:none;margin-left:6px}th.sortable a.sort.on{font-weight:700;text-decoration:underline}.sortnote{margin:4px 0 0}.mcharts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:0 16px;max-width:1400px}figure.mchart{margin:0 0 18px;background:#fff;border:1px solid var(--line);padding:10px 12px;border-radius:6px;max-width:680px}
figure.mchart figcaption{font-weight:600;margin-bottom:6px}figure.mchart svg{max-width:100%;height:auto}
.mchart text{font-size:11px;fill:var(--muted)}.mchart .grid{stroke:var(--line)}.mchart .axis{stroke:#9aa3b2}
.mchart rect.ok{fill:#34a66a}.mchart rect.bad{fill:#e05252}.mchart .line{fill:none;stroke-width:1.6}
.mchart .age{stroke:#6d28d9;fill:#6d28d9}.mchart .lag{stroke:#0f766e;fill:#0f766e}.key.age{color:#6d28d9}.key.lag{color:#0f766e}.mchart .p50{stroke:#1d4ed8;fill:#1d4ed8}.mchart .p90{stroke:#8f5600;fill:#8f5600}.mchart .p99{stroke:#c62828;fill:#c62828}.mchart polyline.line{fill:none}
.key{font-weight:400;font-size:12px;margin-left:10px}.key::before{content:"";display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px;vertical-align:-1px;background:currentColor}
.key.ok{color:var(--ok)}.key.bad{color:var(--bad)}.key.p50{color:#1d4ed8}.key.p90{color:#8f5600}.key.p99{color:#c62828}
td.acts{white-space:nowrap}
form.switcher{display:flex;gap:6px;align-items:center;margin:0 0 8px}select{font:inherit;padding:3px 6px;border:1px solid #cfd4db;border-radius:4px}
details.addjob{margin:6px 0 10px}details.addjob summary{cursor:pointer;color:var(--link);width:max-content}
form.addjob{display:grid;grid-template-columns:max-content 1fr;gap:6px 10px;align-items:start;background:#fff;border:1px solid var(--line);padding:10px 12px;max-width:680px;margin-top:6px}
form.addjob textarea{font:12px/1.5 ui-monospace,Menlo,Consolas,monospace;padding:4px 6px;border:1px solid #cfd4db;border-radius:4px}
form.addjob .field-errors,form.addjob button{grid-column:2}.field-errors{margin:0;padding-left:18px;color:var(--bad)}form.addjob button{justify-self:start}
@media (prefers-color-scheme: dark){
:root{--fg:#e6e9ef;--muted:#9aa3b2;--line:#2f3644;--bg:#141820;--ok:#4cc38a;--bad:#ff7b7b;--warn:#f0b45a;--link:#8ab4ff}
.top{background:#0c0f14}
table.grid,.figure,figure.mchart,dl.facts,pre,ul.tree,.empty,.tabs a.on,button,input,textarea,select,form.addjob{background:#1c212b;color:var(--fg)}
.grid th{background:#222836}.badge,.badge.muted,.tabs .n{background:#2a303c;color:var(--fg)}
.badge.ok,.st-completed{background:#173a28!important;color:var(--ok)!important}.badge.bad,.st-failed,.tabs a.bad .n{background:#4a1d1d!important;color:var(--bad)!important}
.badge.warn,.st-delayed,.st-waiting-children{background:#43331a!important;color:var(--warn)!important}.st-active{background:#1b2c4d!important;color:var(--link)!important}
.notice,.flash{background:#1b2c4d;border-color:#2f4a7d}.flash.error{background:#4a1d1d;border-color:#7d2f2f}
pre.stack{background:#2a1a1a;color:#ffb3b3}.chart svg{background:#1c212b}button:hover{background:#262c38}
button.act{border-color:var(--link);color:var(--link)}
.mchart .age{stroke:#c4a5ff;fill:#c4a5ff}.mchart .lag{stroke:#5eead4;fill:#5eead4}.key.age{color:#c4a5ff}.key.lag{color:#5eead4}.mchart .p50{stroke:#8ab4ff;fill:#8ab4ff}.mchart .p90{stroke:#f0b45a;fill:#f0b45a}.mchart .p99{stroke:#ff7b7b;fill:#ff7b7b}.key.p50{color:#8ab4ff}.key.p90{color:#f0b45a}.key.p99{color:#ff7b7b}
ul.tree li.current>strong{background:#43331a}td.zero a{color:#5b6474}
}
`;

export const APP_JS = `(() => {
  const meta = (n) => (document.querySelector('meta[name="' + n + '"]') || {}).content || '';
  const csrf = meta('spool-csrf');
  const every = Number(meta('spool-refresh')) || 0;
  const flash = (text, error) => {
    const el = document.getElementById('flash');
    if (!el) return;
    el.textContent = text; el.hidden = !text; el.className = 'flash' + (error ? ' error' : '');
  };
  const saved = sessionStorage.getItem('spool-flash');
  if (saved) { sessionStorage.removeItem('spool-flash'); flash(saved, false); }
  const picked = () => [...document.querySelectorAll('input.pick:checked')].map((c) => c.value);
  const sync = () => {
    const n = picked().length;
    for (const b of document.querySelectorAll('button.needs-selection')) b.disabled = n === 0;
  };
  document.addEventListener('change', (e) => {
    if (e.target.classList.contains('pick-all')) for (const c of document.querySelectorAll('input.pick')) c.checked = e.target.checked;
    sync();
  });
  document.addEventListener('click', async (e) => {
    const button = e.target.closest('button[data-action]');
    if (!button) return;
    const body = JSON.parse(button.dataset.action);
    let text = button.dataset.confirm;
    if (body.ids === 'selected') {
      body.ids = picked();
      if (!body.ids.length) return;
      text = text.replace('{n}', body.ids.length.toLocaleString('en-US'));
    }
    if (body.names === '{name}') {
      const name = (document.getElementById('pause-name') || {}).value || '';
      if (!name.trim()) { flash('Type the job name to pause first.', true); return; }
      body.names = name.trim();
      text = text.replace('{name}', body.names);
    }
    if (!confirm(text)) return;
    const back = body.back; delete body.back;
    const main = document.getElementById('content');
    button.disabled = true;
    try {
      const res = await fetch(button.dataset.endpoint || main.dataset.endpoint, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', 'x-spool-csrf': csrf }, body: JSON.stringify(body) });
      const reply = await res.json().catch(() => ({}));
      if (!res.ok) { flash((reply.message || res.statusText) + ' (HTTP ' + res.status + ')', true); button.disabled = false; return; }
      sessionStorage.setItem('spool-flash', reply.message || 'Done');
      if (back && main.dataset.back) location.href = main.dataset.back; else location.reload();
    } catch (err) { flash(String(err), true); button.disabled = false; }
  });
  document.addEventListener('submit', async (e) => {
    const to = e.target.closest('form.switcher');
    if (to) { e.preventDefault(); location.href = to.elements.to.selectedOptions[0].dataset.href; return; }
    const form = e.target.closest('form[data-add]');
    if (!form) return;
    e.preventDefault();
    const errors = form.querySelector('.field-errors');
    const show = (list) => { errors.replaceChildren(...list.map((t) => { const li = document.createElement('li'); li.textContent = t; return li; })); errors.hidden = !list.length; };
    const jobName = form.elements.jobName.value.trim();
    const data = form.elements.data.value;
    if (!confirm(form.dataset.confirm.replace('{name}', jobName))) return;
    const main = document.getElementById('content');
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const res = await fetch(main.dataset.endpoint, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', 'x-spool-csrf': csrf }, body: JSON.stringify({ action: 'add', jobName, data }) });
      const reply = await res.json().catch(() => ({}));
      button.disabled = false;
      if (!res.ok) { show(reply.errors || [String(reply.message || res.statusText)]); flash((reply.message || res.statusText) + ' (HTTP ' + res.status + ')', true); return; }
      show([]); sessionStorage.setItem('spool-flash', reply.message || 'Done'); location.reload();
    } catch (err) { button.disabled = false; flash(String(err), true); }
  });
  sync();
  if (every > 0) {
    const live = document.getElementById('live');
    if (live) live.hidden = false;
    setInterval(async () => {
      const active = document.activeElement;
      if (document.hidden || picked().length || (active && ['INPUT', 'TEXTAREA', 'SELECT'].includes(active.tagName)) || document.querySelector('details.addjob[open]')) return;
      try {
        const res = await fetch(location.href, { credentials: 'same-origin', headers: { 'x-spool-poll': '1' } });
        if (!res.ok) return;
        const next = new DOMParser().parseFromString(await res.text(), 'text/html').getElementById('content');
        if (next) { document.getElementById('content').innerHTML = next.innerHTML; sync(); }
        if (live) live.title = 'updated ' + new Date().toLocaleTimeString();
      } catch { /* next tick */ }
    }, every * 1000);
  }
})();
`;
