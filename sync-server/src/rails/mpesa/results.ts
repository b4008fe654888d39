// Reading Daraja's asynchronous result bodies (B2C, transaction status, reversal: one `Result`
// shape) and the M-Pesa Express callback (`Body.stkCallback`). Pure: no I/O, no trust decisions.

export interface DarajaResult {
  resultType: number | undefined;
  /** As a string: the pages send it as a number (0, 2001) or a string ("R000002", "SFC_IC0003"). */
  resultCode: string;
  resultDesc: string;
  originatorConversationId: string;
  conversationId: string;
  transactionId: string | undefined;
  /** ResultParameters.ResultParameter as key → value (the first value of a repeated key). */
  parameters: Map<string, unknown>;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A list that may arrive as one object (the pages show ReferenceItem that way). */
function list(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

export function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** `{ "Result": { ... } }` (BusinessToCustomer.md, TransactionStatus.md, Reversal.md callback payloads). */
export function parseResult(body: unknown): DarajaResult | undefined {
  const result = record(record(body)?.Result);
  if (!result) return undefined;
  const resultCode = text(result.ResultCode);
  const originatorConversationId = text(result.OriginatorConversationID);
  const conversationId = text(result.ConversationID);
  if (resultCode === undefined || !originatorConversationId || !conversationId) return undefined;
  const parameters = new Map<string, unknown>();
  for (const item of list(record(result.ResultParameters)?.ResultParameter)) {
    const key = text(record(item)?.Key);
    if (key && !parameters.has(key)) parameters.set(key, record(item)?.Value);
  }
  const resultType = Number(result.ResultType);
  return {
    resultType: Number.isFinite(resultType) ? resultType : undefined,
    resultCode: resultCode.trim(),
    resultDesc: text(result.ResultDesc) ?? '',
    originatorConversationId,
    conversationId,
    transactionId: text(result.TransactionID),
    parameters,
  };
}

export function parameterText(result: DarajaResult, key: string): string | undefined {
  const value = text(result.parameters.get(key));
  return value === undefined ? undefined : value.trim();
}

export function parameterNumber(result: DarajaResult, key: string): number | undefined {
  const value = Number(result.parameters.get(key));
  return result.parameters.has(key) && Number.isFinite(value) ? value : undefined;
}

export interface StkCallback {
  merchantRequestId: string;
  checkoutRequestId: string;
  resultCode: string;
  resultDesc: string;
  amount: number | undefined;
  receipt: string | undefined;
  phone: string | undefined;
}

/** `{ "Body": { "stkCallback": { ... } } }` (MpesaExpressSimulate.md "Callback Payload"). */
export function parseStkCallback(body: unknown): StkCallback | undefined {
  const callback = record(record(record(body)?.Body)?.stkCallback);
  if (!callback) return undefined;
  const merchantRequestId = text(callback.MerchantRequestID);
  const checkoutRequestId = text(callback.CheckoutRequestID);
  const resultCode = text(callback.ResultCode);
  if (!merchantRequestId || !checkoutRequestId || resultCode === undefined) return undefined;
  const items = new Map<string, unknown>();
  for (const item of list(record(callback.CallbackMetadata)?.Item)) {
    const name = text(record(item)?.Name);
    if (name && !items.has(name)) items.set(name, record(item)?.Value);
  }
  const amount = Number(items.get('Amount'));
  return {
    merchantRequestId,
    checkoutRequestId,
    resultCode: resultCode.trim(),
    resultDesc: text(callback.ResultDesc) ?? '',
    amount: items.has('Amount') && Number.isFinite(amount) ? amount : undefined,
    receipt: text(items.get('MpesaReceiptNumber')),
    phone: text(items.get('PhoneNumber')),
  };
}
