/**
 * The web app's one stylesheet, served at `/assets/app.css` and inlined into the CLI pages. No
 * web fonts, no images: the system font stack and plain CSS. Colours meet WCAG AA contrast on
 * their backgrounds; every focusable element shows a visible focus ring.
 */
export const APP_CSS = `
:root{--bg:#f5f6f8;--surface:#fff;--text:#1b1d23;--muted:#545b69;--border:#d5d9e0;
--primary:#2346c7;--primary-hover:#1a369c;--danger:#b3261e;--danger-bg:#fdecea;
--ok:#1c6b33;--ok-bg:#e4f3e8;--info:#1f3f9e;--info-bg:#e6ecfb;--warn:#7f4500;--warn-bg:#fff1d6;
--neutral:#3d4350;--neutral-bg:#eceef2;--focus:#1d4ed8;--code-bg:#eef0f4;--radius:8px}
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
color:var(--text);background:var(--bg)}
a{color:var(--primary)}a:hover{color:var(--primary-hover)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px;border-radius:4px}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 .5rem}
h2{font-size:1.2rem;margin:0 0 .25rem}h3{font-size:1rem;margin:0}
p{margin:.5rem 0}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem}
code{background:var(--code-bg);padding:.05rem .3rem;border-radius:4px;overflow-wrap:anywhere}
pre{background:var(--code-bg);padding:.75rem;border-radius:6px;overflow:auto;margin:.5rem 0;white-space:pre}
pre code{background:none;padding:0}
.skip-link{position:absolute;left:-999px;top:.5rem;background:var(--surface);padding:.5rem 1rem;z-index:10}
.skip-link:focus{left:.5rem}
.visually-hidden{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.site-header{background:var(--surface);border-bottom:1px solid var(--border)}
.site-header-inner{max-width:68rem;margin:0 auto;padding:.5rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.25rem 1rem}
.brand{font-weight:700;font-size:1.1rem;color:var(--text);text-decoration:none;display:flex;align-items:center;gap:.4rem}
.brand-mark{display:inline-block;width:1.4rem;height:1.4rem;border-radius:6px;background:var(--primary);
color:#fff;font-size:.8rem;line-height:1.4rem;text-align:center}
.main-nav{order:3;flex-basis:100%;min-width:0}
.main-nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}
.main-nav a{display:block;padding:.5rem .75rem;border-radius:6px;color:var(--neutral);text-decoration:none;white-space:nowrap}
.main-nav a:hover{background:var(--neutral-bg);color:var(--text)}
.main-nav a[aria-current=page]{background:var(--info-bg);color:var(--info);font-weight:600}
.account{margin-left:auto;display:flex;align-items:center;gap:.5rem;font-size:.9rem;color:var(--muted)}
.account form{margin:0}
@media (min-width:760px){.main-nav{order:0;flex-basis:auto}}
main{max-width:68rem;margin:0 auto;padding:1.5rem 1rem 3rem}
main.narrow{max-width:30rem}
.page-head{display:flex;flex-wrap:wrap;align-items:flex-end;justify-content:space-between;gap:.5rem;margin-bottom:1rem}
.lead{color:var(--muted);margin:0 0 1rem}
.page-head .lead{margin:0}
.card{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius);padding:1rem 1.25rem;margin:0 0 1rem}
.card>h1:first-child,.card>h2:first-child{margin-top:0}
.muted{color:var(--muted)}.small{font-size:.875rem}
.error{color:var(--danger)}
.notice{border-radius:var(--radius);padding:.75rem 1rem;margin:0 0 1rem;border:1px solid}
.notice.ok{background:var(--ok-bg);color:var(--ok);border-color:#a9d5b5}
.notice.error{background:var(--danger-bg);color:var(--danger);border-color:#f1b6b1}
.notice.info{background:var(--info-bg);color:var(--info);border-color:#b7c6f2}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
.hint{display:block;font-weight:400;color:var(--muted);font-size:.875rem}
input[type=text],input[type=email],input[type=password],input[type=search],select,textarea{
width:100%;font:inherit;color:inherit;background:#fff;padding:.5rem .6rem;border:1px solid #8a909c;border-radius:6px}
textarea{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem;min-height:7rem;resize:vertical}
input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid var(--focus);outline-offset:1px}
button,.button{display:inline-flex;align-items:center;justify-content:center;gap:.35rem;font:inherit;font-weight:600;
padding:.5rem 1rem;min-height:2.5rem;border-radius:6px;border:1px solid var(--primary);background:var(--primary);color:#fff;
cursor:pointer;text-decoration:none}
button:hover,.button:hover{background:var(--primary-hover);border-color:var(--primary-hover);color:#fff}
button.secondary,.button.secondary{background:var(--surface);color:var(--primary)}
button.secondary:hover,.button.secondary:hover{background:var(--info-bg);color:var(--primary-hover)}
button.danger{background:var(--surface);color:var(--danger);border-color:var(--danger)}
button.danger:hover{background:var(--danger-bg);color:var(--danger)}
button.danger-solid{background:var(--danger);border-color:var(--danger);color:#fff}
button.link{background:none;border:none;color:var(--primary);padding:.25rem;min-height:0;text-decoration:underline;font-weight:400}
button.small,.button.small{padding:.25rem .6rem;min-height:2rem;font-size:.875rem}
button:disabled{opacity:.55;cursor:not-allowed}
button[value=deny]{background:var(--surface);color:var(--danger);border-color:var(--danger)}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-top:.75rem}
.actions form{margin:0}
.pill{display:inline-block;padding:.1rem .6rem;border-radius:999px;font-size:.8rem;font-weight:600;white-space:nowrap}
.pill.ok{background:var(--ok-bg);color:var(--ok)}.pill.info{background:var(--info-bg);color:var(--info)}
.pill.warn{background:var(--warn-bg);color:var(--warn)}.pill.neutral{background:var(--neutral-bg);color:var(--neutral)}
.pill.danger{background:var(--danger-bg);color:var(--danger)}
.badge{display:inline-block;min-width:1.3rem;padding:0 .35rem;border-radius:999px;background:var(--danger);color:#fff;font-size:.75rem;text-align:center;margin-left:.25rem}
.plugin-head{margin-bottom:.5rem}
.provider{border:1px solid var(--border);border-radius:6px;padding:.75rem;margin:.75rem 0;background:#fafbfc}
.provider-head{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;justify-content:space-between}
.provider-kind{font-weight:400;color:var(--muted);font-size:.875rem}
.tree,.tree ul{list-style:none;margin:.5rem 0 0;padding:0}
.tree ul{margin-left:1.1rem;padding-left:.75rem;border-left:2px solid var(--border)}
.instance{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .75rem;padding:.4rem 0}
.instance-name{font-weight:600}
.instance .actions{margin:0 0 0 auto}
.tools{list-style:none;margin:.75rem 0 0;padding:0;border-top:1px solid var(--border)}
.tools li{padding:.6rem 0;border-bottom:1px solid var(--border)}
.tools li:last-child{border-bottom:0}
.tool-title{display:flex;flex-wrap:wrap;gap:.25rem .6rem;align-items:center}
.tool-title p{margin:0}
/* an upstream's tool names can be one long word: they wrap instead of widening a phone's page */
.tool-title>*{min-width:0;overflow-wrap:anywhere}
/* relative: a visually hidden label inside scrolls with the table instead of widening the page */
.table-wrap{overflow-x:auto;position:relative}
table{width:100%;border-collapse:collapse;font-size:.95rem}
th,td{text-align:left;padding:.55rem .5rem;border-bottom:1px solid var(--border);vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:var(--muted)}
td form{margin:0}
td code{white-space:nowrap}
fieldset{border:0;margin:.75rem 0 0;padding:0;min-width:0}
legend{font-weight:600;padding:0}
label.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.4rem 0}
label.check input{flex:none;width:1.1rem;height:1.1rem;margin:.15rem 0 0}
label.check code{overflow-wrap:anywhere}
.inline-form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.inline-form label{margin:0}
.inline-form select{width:auto;min-width:9rem;max-width:100%}
/* A form beside a wider list; min-width:0 lets a list narrower than its table scroll inside */
.grid-2{display:grid;gap:1rem}.grid-2>*{min-width:0}
@media (min-width:860px){.grid-2{grid-template-columns:minmax(0,2fr) minmax(0,3fr)}}
.sub-nav{display:flex;flex-wrap:wrap;gap:.25rem;margin:0 0 1rem;padding:0;list-style:none;border-bottom:1px solid var(--border)}
.sub-nav a{display:block;padding:.5rem .75rem;color:var(--neutral);text-decoration:none;border-bottom:3px solid transparent}
.sub-nav a[aria-current=page]{color:var(--info);border-bottom-color:var(--primary);font-weight:600}
.secret-once{border:2px solid var(--primary)}
.copy-row{display:flex;gap:.5rem;align-items:flex-start}
.copy-row pre{flex:1;min-width:0;margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
details{margin:.5rem 0}
summary{cursor:pointer;font-weight:600;padding:.25rem 0}
.approvals{list-style:none;margin:0;padding:0}
.approval h2{font-size:1.05rem}
.approval-message{white-space:pre-line}
.empty{color:var(--muted);padding:1rem 0}
.preview{margin-top:.5rem}
[data-preview-summary]{font-weight:600}
.preview ul{margin:.25rem 0;padding-left:1.25rem}
.problems li{color:var(--danger)}
.sign-in-providers{display:grid;gap:.5rem;margin-top:1rem}
.sign-in-providers button{width:100%}
.divider{display:flex;align-items:center;gap:.75rem;color:var(--muted);margin:1.25rem 0 .25rem;font-size:.875rem}
.divider::before,.divider::after{content:"";flex:1;border-top:1px solid var(--border)}
dialog{border:1px solid var(--border);border-radius:10px;padding:1.25rem;width:min(32rem,calc(100vw - 2rem));color:var(--text)}
dialog::backdrop{background:rgba(15,18,25,.55)}
dialog h2{margin-top:0}
.stack>*+*{margin-top:.5rem}
.chart-figure{margin:0 0 1rem}
.chart-figure th[scope=row],[data-top-tool] th[scope=row]{font-size:.95rem;text-transform:none;letter-spacing:0;color:var(--text);font-weight:400}
.chart{width:100%;height:auto;max-height:14rem;display:block;margin:.5rem 0}
.chart-ok{fill:var(--ok)}.chart-error{fill:var(--danger)}.chart-denied{fill:var(--warn)}
.chart-pending{fill:var(--info)}.chart-expired{fill:var(--neutral)}
.chart-ok-bg{background:var(--ok)}.chart-error-bg{background:var(--danger)}.chart-denied-bg{background:var(--warn)}
.chart-pending-bg{background:var(--info)}.chart-expired-bg{background:var(--neutral)}
.chart-axis{fill:var(--muted);font-size:11px}.chart-grid{stroke:var(--border)}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:0;padding:0;font-size:.875rem}
.legend li{display:flex;align-items:center;gap:.35rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:2px}
.stats{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));margin:0 0 1rem}
.stat{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius);padding:.75rem 1rem}
.stat strong{display:block;font-size:1.5rem}
.filters{display:grid;gap:.25rem 1rem;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));align-items:end}
.filters label{margin:.25rem 0}
.filters input,.filters select{width:100%}
dl.facts{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.35rem 1rem;margin:0}
dl.facts dt{font-weight:600}dl.facts dd{margin:0;min-width:0;overflow-wrap:anywhere}
`;
