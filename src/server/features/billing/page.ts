import type { Subscription } from '../../../shared/schemas/system.js';
import type { Tier } from '../../../shared/schemas/users.js';
import type { CardSummary } from './card.js';
import { html, SafeHtml } from '../../html.js';

/** One plan offered on the page. */
export interface PlanOption {
  tier: Tier;
  priceCents: number;
  characters: number;
  perMinute: number;
  perDay: number | null;
}

/** One invoice row on the page. */
export interface InvoiceLine {
  id: string;
  period_start: string;
  period_end: string;
  tier: Tier;
  characters_used: number;
  amount_cents: number;
  currency: string;
}

/** Everything the portal page shows. */
export interface PortalView {
  email: string;
  name?: string;
  subscription: Subscription;
  usage: { used: number; limit: number };
  plans: PlanOption[];
  invoices: InvoiceLine[];
  card?: CardSummary;
  csrf: string;
  notice?: string;
  error?: string;
}

const number = (n: number) => n.toLocaleString('en-US');
const money = (cents: number, currency = 'USD') => `${currency === 'USD' ? '$' : `${currency} `}${(cents / 100).toFixed(2)}`;
const title = (tier: string) => tier[0]!.toUpperCase() + tier.slice(1);

const STYLE = `
:root{color-scheme:light;--ink:#1d2433;--muted:#5b6475;--line:#e3e7ee;--bg:#f5f7fb;--brand:#3157d5;--ok:#1f7a4d;--bad:#b3261e}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
header{background:#fff;border-bottom:1px solid var(--line)}header div,main{max-width:900px;margin:0 auto;padding:16px 24px}
header h1{font-size:18px;margin:0}header p{margin:0;color:var(--muted)}main{display:grid;gap:20px;padding-bottom:48px}
section{background:#fff;border:1px solid var(--line);border-radius:10px;padding:20px 24px}h2{font-size:16px;margin:0 0 12px}
.row{display:flex;gap:24px;flex-wrap:wrap}.stat{min-width:150px}.stat b{display:block;font-size:20px}.stat span{color:var(--muted);font-size:13px}
.bar{height:8px;background:var(--line);border-radius:4px;overflow:hidden;margin-top:8px}.bar i{display:block;height:100%;background:var(--brand)}
.plans{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:12px;margin-bottom:12px}
.plan{border:1px solid var(--line);border-radius:8px;padding:12px;display:block;cursor:pointer}.plan:has(input:checked){border-color:var(--brand);box-shadow:0 0 0 2px #3157d533}
.plan strong{font-size:15px}.plan .price{display:block;font-weight:600;margin:2px 0 4px}.plan small{display:block;color:var(--muted)}
button{font:inherit;border:0;border-radius:6px;padding:8px 16px;background:var(--brand);color:#fff;cursor:pointer}button.secondary{background:#fff;color:var(--bad);border:1px solid var(--bad)}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:8px;border-bottom:1px solid var(--line)}th{color:var(--muted);font-weight:600;font-size:13px}
label.field{display:block;font-size:13px;color:var(--muted)}input[type=text]{font:inherit;padding:7px 9px;border:1px solid var(--line);border-radius:6px;margin-top:4px}
.notice,.error{padding:10px 14px;border-radius:8px}.notice{background:#e7f5ee;color:var(--ok)}.error{background:#fdecea;color:var(--bad)}
.status-active{color:var(--ok)}.status-cancelled{color:var(--bad)}.muted{color:var(--muted)}
`;

function layout(pageTitle: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${pageTitle}</title><style>${new SafeHtml(STYLE)}</style></head>
<body>${body}</body></html>`.value;
}

/** The billing portal page of one session. */
export function renderPortalPage(view: PortalView): string {
  const sub = view.subscription;
  const pct = view.usage.limit > 0 ? Math.min(100, Math.round((view.usage.used / view.usage.limit) * 100)) : 0;
  const current = view.plans.find((p) => p.tier === sub.tier);
  const csrf = html`<input type="hidden" name="csrf" value="${view.csrf}">`;
  const body = html`
<header><div><h1>voxctl billing</h1><p>${view.name ? `${view.name} · ` : ''}${view.email}</p></div></header>
<main>
${view.notice ? html`<div class="notice" role="status" id="notice">${view.notice}</div>` : ''}
${view.error ? html`<div class="error" role="alert" id="error">${view.error}</div>` : ''}
<section aria-labelledby="plan-h">
  <h2 id="plan-h">Your plan</h2>
  <div class="row">
    <div class="stat"><b id="current-tier">${title(sub.tier)}</b><span>${current ? `${money(current.priceCents)} / month` : ''}</span></div>
    <div class="stat"><b id="subscription-status" class="status-${sub.status}">${title(sub.status)}</b><span>${sub.cancel_at_period_end ? 'Will not renew' : 'Renews monthly'}</span></div>
    <div class="stat"><b>${sub.current_period_start} – ${sub.current_period_end}</b><span>Current billing period (UTC)</span></div>
  </div>
  <div style="margin-top:16px"><span id="usage">${number(view.usage.used)} of ${number(view.usage.limit)} characters used</span>
    <div class="bar" aria-hidden="true"><i style="width:${pct}%"></i></div></div>
</section>
<section aria-labelledby="change-h">
  <h2 id="change-h">Change plan</h2>
  <p class="muted">Takes effect immediately on your character quota and rate limits.</p>
  <form method="post" action="/billing/portal/tier" id="tier-form">${csrf}
    <div class="plans">
    ${view.plans.map(
      (p) => html`<label class="plan"><input type="radio" name="tier" value="${p.tier}" id="tier-${p.tier}"${p.tier === sub.tier ? html` checked` : ''}>
        <strong>${title(p.tier)}</strong><span class="price">${money(p.priceCents)} / month</span>
        <small>${number(p.characters)} characters / month</small>
        <small>${number(p.perMinute)} requests/min · ${p.perDay === null ? 'unlimited' : number(p.perDay)} /day</small></label>`,
    )}
    </div>
    <button type="submit" id="change-tier">Change plan</button>
  </form>
</section>
<section aria-labelledby="sub-h">
  <h2 id="sub-h">Subscription</h2>
  ${
    sub.status === 'active'
      ? html`<form method="post" action="/billing/portal/cancel">${csrf}<p class="muted">Cancelling stops synthesis, batch jobs and dataset generation right away.</p>
         <button type="submit" class="secondary" id="cancel-subscription">Cancel subscription</button></form>`
      : html`<form method="post" action="/billing/portal/resume">${csrf}<p class="muted">Your subscription is cancelled.</p>
         <button type="submit" id="resume-subscription">Resume subscription</button></form>`
  }
</section>
<section aria-labelledby="pm-h">
  <h2 id="pm-h">Payment method</h2>
  <p id="payment-method">${view.card ? `${view.card.brand} ending in ${view.card.last4}, expires ${String(view.card.expMonth).padStart(2, '0')}/${view.card.expYear}` : 'No payment method on file.'}</p>
  <form method="post" action="/billing/portal/payment-method" id="payment-form" autocomplete="off">${csrf}
    <div class="row">
      <label class="field">Card number<br><input type="text" name="card_number" id="card-number" inputmode="numeric" autocomplete="cc-number" size="22" required></label>
      <label class="field">Expiry month<br><input type="text" name="exp_month" id="exp-month" inputmode="numeric" placeholder="MM" size="4" required></label>
      <label class="field">Expiry year<br><input type="text" name="exp_year" id="exp-year" inputmode="numeric" placeholder="YYYY" size="6" required></label>
    </div>
    <p class="muted">Only the brand, the last four digits and the expiry are kept.</p>
    <button type="submit" id="save-card">Save card</button>
  </form>
</section>
<section aria-labelledby="inv-h">
  <h2 id="inv-h">Invoices</h2>
  ${
    view.invoices.length === 0
      ? html`<p class="muted" id="no-invoices">No invoices yet: one is issued for each past billing period with usage.</p>`
      : html`<table id="invoices"><thead><tr><th>Invoice</th><th>Period</th><th>Plan</th><th>Characters</th><th>Amount</th><th></th></tr></thead><tbody>
        ${view.invoices.map(
          (i) => html`<tr><td>${i.id}</td><td>${i.period_start} – ${i.period_end}</td><td>${title(i.tier)}</td><td>${number(i.characters_used)}</td>
          <td>${money(i.amount_cents, i.currency)}</td><td><a href="/billing/portal/invoices/${i.id}.csv" download="${i.id}.csv">Download CSV</a></td></tr>`,
        )}</tbody></table>`
  }
</section>
</main>`;
  return layout('voxctl billing', body);
}

/** A short page for dead ends (invalid, used or expired link; session over). */
export function renderMessagePage(opts: { title: string; message: string }): string {
  return layout(
    opts.title,
    html`<header><div><h1>voxctl billing</h1></div></header><main><section><h2>${opts.title}</h2><p>${opts.message}</p>
<p class="muted">Run <code>voxctl billing portal</code> to get a new link.</p></section></main>`,
  );
}
