// Creating a MoMo resource (a transfer, a request-to-pay) and reading it back: the shared
// mechanics of payouts and collections.
//
// api-description.md: a POST carries a reference id (X-Reference-Id) that becomes the resource's
// identity; the platform validates the request and answers 202 Accepted; the resource starts
// PENDING and ends SUCCESSFUL or FAILED; a POST with a reference id already used gets a
// duplication error (409, common-error-codes.md); `GET .../{referenceId}` returns the resource; a
// callback is sent to the POST's callback URL once it is final (PUT, once, never retried).
import type { RailAdapterDeps } from '../types.ts';
import { type MomoClient, MomoError, type Product, errorCode, errorMessage } from './client.ts';
import { MISCONFIGURATIONS, REFUSALS } from './reasons.ts';
import { type MomoResource, parseResource } from './wire.ts';

export type Creation =
  /** 202: accepted, the resource exists (PENDING). */
  | { kind: 'accepted' }
  /** 409: a resource with this reference id exists already (an earlier send of the same request). */
  | { kind: 'duplicate' }
  /** 400 or a refusal code: this request was turned down; `code` is MoMo's, or BAD_REQUEST. */
  | { kind: 'refused'; code: string; message: string | undefined };

export async function createResource(
  client: MomoClient,
  deps: RailAdapterDeps,
  product: Product,
  path: string,
  referenceId: string,
  callbackUrl: string,
  body: unknown,
): Promise<Creation> {
  const response = await client.request(product, 'POST', path, {
    headers: { 'X-Reference-Id': referenceId, 'X-Callback-Url': callbackUrl },
    body,
  });
  const code = errorCode(response.body);
  if (response.status >= 200 && response.status < 300) return { kind: 'accepted' };
  if (response.status === 409) return { kind: 'duplicate' };
  if (response.status === 400) return { kind: 'refused', code: 'BAD_REQUEST', message: errorMessage(response.body) };
  if (code !== undefined && REFUSALS.has(code)) return { kind: 'refused', code, message: errorMessage(response.body) };
  if (code !== undefined && MISCONFIGURATIONS.has(code)) {
    deps.log(`MTN MoMo refused POST ${path} for a configuration reason: check MOMO_TARGET_ENVIRONMENT, the API user's callback host and its permissions`, { code, status: response.status });
  }
  throw new MomoError(`MTN MoMo answered POST ${path} with HTTP ${response.status}${code ? ` ${code}` : ''}: outcome unknown`, response.status, code);
}

/**
 * `GET <path>/{referenceId}`: the resource, or undefined when MoMo says it never heard of the
 * reference (404 with code RESOURCE_NOT_FOUND). A 404 without that code (a wrong base URL, a
 * gateway's own 404) is not taken as "never heard of it": it throws, so nothing is resent on it.
 */
export async function fetchResource(client: MomoClient, product: Product, path: string): Promise<MomoResource | undefined> {
  const response = await client.request(product, 'GET', path);
  const code = errorCode(response.body);
  if (response.status === 404 && code === 'RESOURCE_NOT_FOUND') return undefined;
  if (response.status !== 200) {
    throw new MomoError(`MTN MoMo answered GET ${path} with HTTP ${response.status}${code ? ` ${code}` : ''}`, response.status, code);
  }
  const resource = parseResource(response.body);
  if (!resource) throw new MomoError(`MTN MoMo's answer to GET ${path} has no status`);
  return resource;
}
