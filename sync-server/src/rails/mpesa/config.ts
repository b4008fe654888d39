// The M-Pesa (Safaricom Daraja) adapter's configuration: its environment variables and the
// initiator's SecurityCredential. Pages: vendor/daraja/BusinessToCustomer.md (prerequisites 6
// and 7, FAQ 21) and TransactionStatus.md (FAQ 6, "How do I generate Security Credential?").
import { X509Certificate, constants, createPublicKey, publicEncrypt, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const MPESA_ENV_VARS = [
  'MPESA_CONSUMER_KEY',
  'MPESA_CONSUMER_SECRET',
  'MPESA_SHORTCODE',
  'MPESA_PASSKEY',
  'MPESA_INITIATOR_NAME',
  'MPESA_SECURITY_CREDENTIAL',
  'MPESA_INITIATOR_PASSWORD',
  'MPESA_CERTIFICATE',
  'MPESA_BASE_URL',
] as const;

export const DEFAULT_BASE_URL = 'https://sandbox.safaricom.co.ke';

export interface MpesaConfig {
  consumerKey: string;
  consumerSecret: string;
  /** The organisation's short code: PartyA of B2C, BusinessShortCode and PartyB of M-Pesa Express. */
  shortcode: string;
  /** M-Pesa Express only; without it the adapter offers no collections. */
  passkey: string | undefined;
  initiatorName: string;
  /** Either given ready-made (MPESA_SECURITY_CREDENTIAL) or made from the password and certificate. */
  credential: { kind: 'given'; securityCredential: string } | { kind: 'encrypt'; initiatorPassword: string; certificatePem: string };
  baseUrl: string;
}

function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * MPESA_CERTIFICATE is the PEM itself or a path to a file holding it. A PEM pasted into an
 * environment variable often has its line breaks written as `\n`; those are restored.
 */
export function readCertificate(value: string): string | undefined {
  if (value.includes('-----BEGIN')) return value.replace(/\\n/g, '\n');
  try {
    const text = readFileSync(value, 'utf8');
    return text.includes('-----BEGIN') ? text : undefined;
  } catch {
    return undefined;
  }
}

export function configFromEnv(env: Readonly<Record<string, string | undefined>>): MpesaConfig | undefined {
  const consumerKey = present(env.MPESA_CONSUMER_KEY);
  const consumerSecret = present(env.MPESA_CONSUMER_SECRET);
  const shortcode = present(env.MPESA_SHORTCODE);
  const initiatorName = present(env.MPESA_INITIATOR_NAME);
  if (!consumerKey || !consumerSecret || !shortcode || !initiatorName) return undefined;
  const given = present(env.MPESA_SECURITY_CREDENTIAL);
  let credential: MpesaConfig['credential'];
  if (given) {
    credential = { kind: 'given', securityCredential: given };
  } else {
    // The password is used exactly as set (no trimming: it is a secret, spaces may count).
    const initiatorPassword = env.MPESA_INITIATOR_PASSWORD;
    const certificateSetting = present(env.MPESA_CERTIFICATE);
    const certificatePem = certificateSetting ? readCertificate(certificateSetting) : undefined;
    if (!initiatorPassword || !certificatePem || !publicKeyOf(certificatePem)) return undefined;
    credential = { kind: 'encrypt', initiatorPassword, certificatePem };
  }
  const baseUrl = (present(env.MPESA_BASE_URL) ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  return { consumerKey, consumerSecret, shortcode, passkey: present(env.MPESA_PASSKEY), initiatorName, credential, baseUrl };
}

/** The public key of Safaricom's certificate (a bare public-key PEM is accepted too). */
export function publicKeyOf(pem: string): KeyObject | undefined {
  try {
    return new X509Certificate(pem).publicKey;
  } catch {
    try {
      return createPublicKey(pem);
    } catch {
      return undefined;
    }
  }
}

/**
 * SecurityCredential = base64(RSA encrypt(initiator password) with the certificate's public key,
 * PKCS #1 v1.5 padding, not OAEP): TransactionStatus.md FAQ 6 ("Write the unencrypted password
 * into a byte array ... use PKCS #1.5 padding ... base64 encoding"). The same FAQ's first
 * sentence speaks of "encrypting the base64 encoded initiator password"; its step-by-step
 * algorithm (which we follow) encrypts the password's own bytes (UTF-8). PKCS #1 v1.5 encryption
 * is randomised, so the credential is made once per adapter and reused: BusinessToCustomer.md
 * FAQ 21 says one credential may serve many requests.
 */
export function securityCredentialOf(config: MpesaConfig): string {
  if (config.credential.kind === 'given') return config.credential.securityCredential;
  const key = publicKeyOf(config.credential.certificatePem);
  if (!key) throw new Error('MPESA_CERTIFICATE holds no usable certificate or public key');
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(config.credential.initiatorPassword, 'utf8')).toString('base64');
}
