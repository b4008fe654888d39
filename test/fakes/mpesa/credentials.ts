// The fake's Safaricom-side secrets: an RSA key pair with a self-signed certificate (what
// Safaricom publishes as its "Public Key Certificate"), and reading a SecurityCredential back.
import { execFile } from 'node:child_process';
import { constants, privateDecrypt } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A 2048-bit RSA key and a self-signed X.509 certificate for it, made with the openssl CLI. */
export async function makeCertificate(commonName = 'Tapline fake M-PESA'): Promise<{ certificatePem: string; privateKeyPem: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'mpesa-fake-'));
  try {
    const keyPath = join(folder, 'key.pem');
    const certificatePath = join(folder, 'certificate.pem');
    await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certificatePath, '-days', '2', '-subj', `/CN=${commonName}`], { timeout: 60_000 });
    return { certificatePem: await readFile(certificatePath, 'utf8'), privateKeyPem: await readFile(keyPath, 'utf8') };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The password inside a SecurityCredential: base64 → RSA decrypt → PKCS #1 v1.5 unpadding. Node
 * 20 refuses RSA_PKCS1_PADDING for private decryption (CVE-2023-46809), so the raw block is
 * decrypted and the padding (00 02, at least 8 non-zero bytes, 00) removed here. undefined when
 * it is not a well-formed credential for this key.
 */
export function decryptCredential(credential: string, privateKeyPem: string): string | undefined {
  try {
    const block = privateDecrypt({ key: privateKeyPem, padding: constants.RSA_NO_PADDING }, Buffer.from(credential, 'base64'));
    if (block[0] !== 0 || block[1] !== 2) return undefined;
    const separator = block.indexOf(0, 2);
    if (separator < 10) return undefined;
    return block.subarray(separator + 1).toString('utf8');
  } catch {
    return undefined;
  }
}
