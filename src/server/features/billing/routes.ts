import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { BillingPortal, Subscription } from '../../../shared/schemas/system.js';
import { errorResponses } from '../../../shared/schemas/common.js';
import { isTier } from '../accounts/index.js';
import { requireAuth } from '../accounts/index.js';
import { requestBase } from '../audio/index.js';
import { CardError } from './card.js';
import { readCookie, SESSION_COOKIE, sessionCookie } from './cookies.js';
import { renderMessagePage, renderPortalPage } from './page.js';
import { NOTICES } from './portal-view.js';
import { DomainError } from '../../../shared/errors.js';

// The portal's pages are HTML for a browser, not API: kept out of the OpenAPI document.
const PAGE = { hide: true } as const;
const FormBody = Type.Object({ csrf: Type.Optional(Type.String()) }, { additionalProperties: Type.String() });

/** Billing: portal links and the subscription (API), and the portal pages they lead to (HTML). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { options } = app.runtime;
  const { billing } = app.runtime.features;

  // Forms post url-encoded bodies; parsed here only, so the API stays JSON-only.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const page = (reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        'x-frame-options': 'DENY',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      })
      .send(body);
  const dead = (reply: FastifyReply, status: number, title: string, message: string) => page(reply, status, renderMessagePage({ title, message }));
  const sessionExpired = (reply: FastifyReply) =>
    dead(reply, 401, 'Session expired', 'This billing session has ended or was never opened in this browser.');

  /** The session of a page request, or undefined after answering 401. */
  const session = async (request: FastifyRequest) => {
    const sessionId = readCookie(request.headers.cookie, SESSION_COOKIE);
    const found = await billing.session(sessionId);
    return found && sessionId ? { ...found, sessionId } : undefined;
  };

  /** Runs a form action after checking session and CSRF token; redirects to the page with a notice. */
  const formAction =
    (done: keyof typeof NOTICES, action: (userId: string, body: Record<string, string | undefined>) => Promise<void>) =>
    async (request: FastifyRequest<{ Body: Record<string, string | undefined> }>, reply: FastifyReply) => {
      const s = await session(request);
      if (!s) return sessionExpired(reply);
      if (!billing.csrfValid(s.sessionId, request.body?.csrf)) {
        return dead(reply, 403, 'Form expired', 'This form could not be verified. Reload the billing page and try again.');
      }
      try {
        await action(s.userId, request.body ?? {});
      } catch (err) {
        if (err instanceof CardError || (err instanceof DomainError && err.code === 'validation_failed')) {
          return page(reply, 400, renderPortalPage(await billing.portalView(s, { error: err.message })));
        }
        throw err;
      }
      return reply.code(303).header('cache-control', 'no-store').redirect(`/billing/portal?done=${done}`, 303);
    };

  app.get(
    '/v1/billing/portal',
    {
      // The portal changes tier and subscription: a read key must not obtain it (DESIGN §4.15).
      config: { fullScope: true },
      schema: {
        tags: ['billing'],
        summary: 'A link to the billing portal, valid 24 hours',
        security: [{ bearer: [] }],
        response: { 200: BillingPortal, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return billing.portalLink(auth.userId, requestBase(options.publicUrl, request));
    },
  );

  app.get(
    '/v1/billing/subscription',
    {
      schema: {
        tags: ['billing'],
        summary: 'The subscription: tier, status and current period',
        security: [{ bearer: [] }],
        response: { 200: Subscription, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => billing.subscription(requireAuth(request).userId),
  );

  app.get('/billing/portal/:token', { config: { public: true }, schema: { ...PAGE, params: Type.Object({ token: Type.String() }) } }, async (request, reply) => {
    const opened = await billing.openLink(request.params.token);
    switch (opened.kind) {
      case 'session': {
        const secure = request.protocol === 'https' || (options.publicUrl ?? '').startsWith('https:');
        const maxAge = (opened.expiresAt.getTime() - billing.now().getTime()) / 1000;
        reply.header('set-cookie', sessionCookie(opened.sessionId, { maxAgeSeconds: maxAge, secure }));
        return reply.header('cache-control', 'no-store').redirect('/billing/portal', 303);
      }
      case 'expired':
        return dead(reply, 410, 'Link expired', 'This billing link has expired (links are valid for 24 hours).');
      default:
        return dead(reply, 404, 'Link not found', 'This billing link is not valid.');
    }
  });

  app.get(
    '/billing/portal',
    { config: { public: true }, schema: { ...PAGE, querystring: Type.Object({ done: Type.Optional(Type.String()) }) } },
    async (request, reply) => {
      const s = await session(request);
      if (!s) return sessionExpired(reply);
      const notice = request.query.done === undefined ? undefined : NOTICES[request.query.done];
      return page(reply, 200, renderPortalPage(await billing.portalView(s, notice === undefined ? {} : { notice })));
    },
  );

  app.post(
    '/billing/portal/tier',
    { config: { public: true }, schema: { ...PAGE, body: FormBody } },
    formAction('tier', async (userId, body) => {
      if (!isTier(body.tier)) throw new DomainError('validation_failed', 'Choose one of the plans: free, starter, pro or enterprise.');
      await billing.changeTier(userId, body.tier);
    }),
  );

  app.post(
    '/billing/portal/cancel',
    { config: { public: true }, schema: { ...PAGE, body: FormBody } },
    formAction('cancel', (userId) => billing.setCancelled(userId, true)),
  );

  app.post(
    '/billing/portal/resume',
    { config: { public: true }, schema: { ...PAGE, body: FormBody } },
    formAction('resume', (userId) => billing.setCancelled(userId, false)),
  );

  app.post(
    '/billing/portal/payment-method',
    { config: { public: true }, schema: { ...PAGE, body: FormBody } },
    formAction('card', async (userId, body) => {
      await billing.savePaymentMethod(userId, { number: body.card_number ?? '', expMonth: body.exp_month ?? '', expYear: body.exp_year ?? '' });
    }),
  );

  app.get(
    '/billing/portal/invoices/:file',
    { config: { public: true }, schema: { ...PAGE, params: Type.Object({ file: Type.String() }) } },
    async (request, reply) => {
      const s = await session(request);
      if (!s) return sessionExpired(reply);
      const id = /^(inv_\d{6})\.csv$/.exec(request.params.file)?.[1];
      let csv: string;
      try {
        if (!id) throw new DomainError('invoice_not_found', 'Invoice not found');
        csv = await billing.invoiceCsv(s.userId, id);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'invoice_not_found') return dead(reply, 404, 'Invoice not found', 'There is no such invoice.');
        throw err;
      }
      return reply
        .code(200)
        .headers({
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': `attachment; filename="${id}.csv"`,
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        })
        .send(csv);
    },
  );
};
export default routes;
