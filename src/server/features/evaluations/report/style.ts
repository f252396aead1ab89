/**
 * The one stylesheet of the evaluation report and the Content-Security-Policy that admits it by hash:
 * the page has no script, no external asset and no inline `style` attribute, so nothing else is allowed.
 */
import { createHash } from 'node:crypto';

/** The report's CSS: a screen layout and a print layout (white page, charts kept whole, colours kept). */
export const REPORT_STYLE = `
:root{color-scheme:light;--ink:#1d2433;--muted:#5b6475;--line:#e3e7ee;--bg:#f5f7fb;--ok:#1f7a4d;--bad:#b3261e;--warn:#8a5a00}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
header{background:#fff;border-bottom:1px solid var(--line)}header div,main{max-width:1000px;margin:0 auto;padding:16px 24px}
header h1{font-size:20px;margin:0}header p{margin:0;color:var(--muted)}main{display:grid;grid-template-columns:minmax(0,1fr);gap:20px;padding-bottom:48px}
section{background:#fff;border:1px solid var(--line);border-radius:10px;padding:20px 24px;overflow-x:auto}h2{font-size:17px;margin:0 0 6px}h3{font-size:14px;margin:16px 0 4px}
p.lead{margin:0 0 12px;color:var(--muted);font-size:13px}.muted{color:var(--muted)}
dl.setup{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:0}dl.setup dt{color:var(--muted)}dl.setup dd{margin:0}
.state{padding:10px 14px;border-radius:8px;background:#fff6e0;color:var(--warn);border:1px solid #f0d9a0}.state.failed,.state.cancelled{background:#fdecea;color:var(--bad);border-color:#f3c2bd}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;background:var(--line)}
.badge.completed{background:#e7f5ee;color:var(--ok)}.badge.partial,.badge.processing,.badge.pending{background:#fff6e0;color:var(--warn)}.badge.failed,.badge.cancelled{background:#fdecea;color:var(--bad)}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:4px 0 8px;font-size:13px}.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
svg.chart{display:block;max-width:100%;height:auto;font-size:11px;font-family:inherit}
svg .grid{stroke:var(--line);stroke-width:1}svg .tick{fill:var(--muted);font-size:10px}svg .label{fill:var(--ink);font-size:12px}
svg .value{fill:var(--muted);font-size:10px}svg .cell{font-size:13px;font-weight:600}svg .empty{fill:#f2f2f2;stroke:var(--line)}
svg .whisker{stroke:var(--ink);stroke-width:1.2}svg .p50{stroke:var(--ink);stroke-width:2.5}svg .p95{stroke:var(--bad);stroke-width:2;stroke-dasharray:3 2}
table{width:100%;border-collapse:collapse;font-size:13px}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;font-size:12px}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.better,.improved{color:var(--ok);font-weight:600}.same,.no_change{color:var(--muted)}.regressed{color:#c62828;font-weight:600}
ol.failures{margin:0;padding-left:22px}ol.failures li{margin:0 0 14px}.meta{font-size:12px;color:var(--muted)}
.align{margin:4px 0 0;line-height:1.9;font-size:14px}.align span{padding:1px 3px;border-radius:3px}
.align .sub{background:#fff1c2}.align .del{background:#fde0dc;text-decoration:line-through}.align .ins{background:#dcf2e4}
.align .sub s{color:var(--bad)}.align .sub b{color:var(--ok);font-weight:600}.align-key{font-size:12px;color:var(--muted)}
tr.caveat td{background:#fff6e0}sup.caveat,.caveat-note sup{color:var(--warn);font-weight:600}.caveat-note{font-size:12px;margin:6px 0 0}
section.verdict{border:2px solid #0b57d0;box-shadow:0 1px 6px rgba(11,87,208,.12)}.verdict .headline{font-size:17px;font-weight:500;margin:0 0 12px}
#verdict-table th[scope=row]{color:var(--ink);font-size:13px}#verdict-table .who{font-weight:600;white-space:nowrap}#verdict-table .binding{white-space:nowrap}#verdict-table .best .who{font-size:14px}.verdict .fig{color:var(--muted);font-size:12px;white-space:nowrap}
.verdict svg.swatch{vertical-align:-1px}.outcome.significant{color:var(--ok);font-weight:600}.outcome.inconclusive{color:var(--warn);font-weight:600}.outcome.same{color:var(--muted)}
#verdict-caveats li{margin:0 0 4px;font-size:13px}ul#verdict-caveats{margin:0;padding-left:20px}
details.group-comparisons{margin:8px 0 0}details.group-comparisons summary{cursor:pointer;font-weight:600;font-size:14px;margin:4px 0}
details.call{margin:8px 0 0}details.call summary{cursor:pointer;font-weight:600;font-size:14px;margin:4px 0}svg .seg{stroke:#fff;stroke-width:.6}.unsupported{color:var(--warn)}table.call-figures{margin:6px 0 0}
a.listen{color:#0b57d0}.plain{font-size:13px;margin:2px 0}.plain b{color:var(--muted);font-weight:600;margin-right:4px}
@media print{
  :root{--bg:#fff}body{font-size:11pt;-webkit-print-color-adjust:exact;print-color-adjust:exact}
  header{border:0}header div{max-width:none;padding:0 8mm 4mm}main{display:block;max-width:none;padding:0 8mm}
  section{border:0;border-radius:0;padding:0;margin:0 0 8mm;break-inside:avoid-page}
  svg.chart,table,ol.failures li{break-inside:avoid}h2{break-after:avoid}section.verdict{border:2px solid #0b57d0;padding:4mm}
}
`;

const styleHash = createHash('sha256').update(REPORT_STYLE).digest('base64');

/**
 * The CSP to send with the report: only the page's own stylesheet (by hash) and a `data:` favicon; no
 * script, connection, frame, form or base URL. The signed report route sets it as the header.
 */
export const REPORT_CSP = `default-src 'none'; style-src 'sha256-${styleHash}'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
