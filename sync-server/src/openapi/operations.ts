/**
 * Operation ids: derived from the method and the path, so that every route, those added
 * tomorrow included, gets a stable name that generated clients can use (`createPosSession`,
 * `tapPosSession`, `listMerchantGiftCards`). A route may set `schema.operationId` itself; the
 * few names the rules get wrong are overridden below.
 */

/** Last path segments that name an action on what precedes them (`POST /pos/sessions/:id/tap`). */
const ACTION_SEGMENTS = new Set([
  'activate', 'bulk', 'cancel', 'charge', 'credit', 'deactivate', 'evaluate', 'import', 'issue', 'pair', 'pay', 'redeem',
  'redeliver', 'revoke', 'rotate', 'seed', 'submit', 'tap', 'validate', 'verify',
]);

/** Names the rules get wrong, by `METHOD /path` as the route declares it. */
const OVERRIDES: Readonly<Record<string, string>> = {
  'POST /api/pay': 'createPayment',
  'POST /api/wallet/pay': 'payFromWallet',
  'GET /api/tap/:tagId': 'resolveTag',
  'DELETE /api/wallet/sessions/current': 'deleteWalletSession',
  'GET /api/gift-cards/verify': 'verifyGiftCardByQuery',
  'POST /api/store/my-orders': 'listStoreMyOrders',
  'GET /api/offline/qr/:id/qr.svg': 'getOfflineQrSvg',
  'POST /api/merchant/gift-cards/bulk': 'bulkIssueMerchantGiftCards',
  'POST /api/wallet/gift-cards/bulk': 'bulkIssueWalletGiftCards',
  'POST /api/agent/gift-cards/bulk': 'bulkIssueAgentGiftCards',
  'POST /api/merchant/gift-cards/import': 'importMerchantGiftCards',
  'POST /api/wallet/gift-cards/import': 'importWalletGiftCards',
  'POST /api/agent/gift-cards/import': 'importAgentGiftCards',
  'DELETE /api/merchant/terminals/:id': 'revokeMerchantTerminal',
  'DELETE /api/merchant/publishable-keys/:id': 'revokeMerchantPublishableKey',
  'DELETE /api/admin/store/products/:id': 'archiveAdminStoreProduct',
  'GET /api/health/ready': 'getReadiness',
  'GET /api/bills/billers': 'listBillers',
  'GET /api/bills/payments': 'listBillPayments',
  'GET /api/bills/payments/:id': 'getBillPayment',
  'GET /api/store/flash-sales/active': 'listActiveStoreFlashSales',
  'GET /api/fx': 'getPublicFxRate',
  'POST /api/merchant/products/:id/archive': 'archiveMerchantProduct',
  'POST /api/merchant/products/:id/unarchive': 'unarchiveMerchantProduct',
  'GET /api/pos/reports/current': 'getCurrentPosReport',
  'POST /api/pos/reports': 'closePosDay',
  'PUT /api/merchant/terminals/:id/manager-pin': 'setMerchantTerminalManagerPin',
};

function pascal(segment: string): string {
  return segment
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

/** English plural to singular, for the resource names of this API (sessions, deliveries, gift-cards). */
const UNCOUNTABLE = new Set(['pos', 'fx', 'analytics', 'stats', 'settings', 'status', 'news']);

export function singular(segment: string): string {
  if (UNCOUNTABLE.has(segment)) return segment;
  if (/ies$/.test(segment)) return segment.replace(/ies$/, 'y');
  if (/(ss|us|is)$/.test(segment) || !segment.endsWith('s')) return segment;
  return segment.slice(0, -1);
}

const isParam = (segment: string) => segment.startsWith(':') || segment.startsWith('{');

/**
 * The operation id of a route. `returnsList`: the 200 answer is a `{data, total, ...}` page,
 * which makes a GET on a collection `list...` instead of `get...`.
 */
export function operationIdFor(method: string, url: string, returnsList: boolean): string {
  const override = OVERRIDES[`${method} ${url}`];
  if (override) return override;
  const segments = url.split('/').filter(Boolean);
  if (segments[0] === 'api') segments.shift();
  const last = segments.at(-1) ?? 'root';
  const endsWithParam = isParam(last);
  // A static segment directly before a parameter names one resource of a collection; so does
  // the last one when the operation is about one resource (create, get one, an action).
  const nouns = (parts: string[], singularLast: boolean) =>
    parts
      .map((segment, index) => {
        if (isParam(segment)) return '';
        const one = isParam(parts[index + 1] ?? '') || (singularLast && index === parts.length - 1);
        return pascal(one ? singular(segment) : segment);
      })
      .join('');
  switch (method) {
    case 'GET':
      if (endsWithParam) return `get${nouns(segments, false)}`;
      return `${returnsList ? 'list' : 'get'}${nouns(segments, false)}`;
    case 'POST':
      if (ACTION_SEGMENTS.has(last) && segments.length > 1) return `${last}${nouns(segments.slice(0, -1), true)}`;
      return `create${nouns(segments, true)}`;
    case 'PUT':
    case 'PATCH':
      return `update${nouns(segments, false)}`;
    case 'DELETE':
      return `delete${nouns(segments, true)}`;
    default:
      return `${method.toLowerCase()}${nouns(segments, false)}`;
  }
}

/** Tags are kebab-case words (`payment links` -> `payment-links`), so that clients can use them as names. */
export function normalizeTag(tag: string): string {
  return tag.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

/** A route without tags is filed under its first path segment after /api. */
export function tagsFor(declared: readonly string[] | undefined, url: string): string[] {
  if (declared && declared.length > 0) return [...new Set(declared.map(normalizeTag))];
  const segments = url.split('/').filter(Boolean);
  return [normalizeTag((segments[0] === 'api' ? segments[1] : segments[0]) ?? 'other')];
}
