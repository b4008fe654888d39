import type { TypedApp } from '../../http/typed-app.ts';
import { GiftCardVerifyBody, GiftCardVerifyQuery, GiftCardVerifyResponse } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { giftCardErrors } from './routes-issuer.ts';
import type { GiftCards } from './service.ts';

const VERIFY_RULES = `Public: no credential. Answers valid (redeemable now), amount (the balance left), currency,
expiresAt, hasPin, locked and status; never the issuer. An unknown code is a 404. Guessing is useless: a code carries 256
random bits, so with even a billion live cards a guess hits one with probability about 1e-68; on top of the API's
per-minute limits (per key, or per IP without one), an IP address that asks about too many unknown codes, whatever
credential it sends (300 per hour by default), gets 429 verify_rate_limited with Retry-After until its window ends. Prefer POST with the code in the body: a GET puts the code in
the URL, where proxies may log it (this server removes it from its own logs).`;

export async function publicGiftCardRoutes(app: TypedApp, _context: AppContext, service: GiftCards): Promise<void> {
  const schema = { tags: ['gift-cards'], summary: 'Verify a gift card code', description: VERIFY_RULES, response: { 200: GiftCardVerifyResponse, ...giftCardErrors } };

  // Its code, like every query value, is redacted from the request log (http/log-redaction.ts).
  app.get('/api/gift-cards/verify', {
    schema: { ...schema, querystring: GiftCardVerifyQuery },
  }, async (request) => service.verify(request.query.code, request.ip));

  app.post('/api/gift-cards/verify', {
    schema: { ...schema, summary: 'Verify a gift card code sent in the body (keeps it out of URLs)', body: GiftCardVerifyBody },
  }, async (request) => service.verify(request.body.code, request.ip));
}
