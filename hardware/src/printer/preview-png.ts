import { spawn } from 'node:child_process';

const RENDER_TIMEOUT_MS = 15_000;
const PNG_BYTES_MAX = 32 * 1024 * 1024;

export type PngResult = { ok: true; png: Buffer } | { ok: false; reason: string };

/**
 * Rasterises a preview SVG with rsvg-convert (Debian package librsvg2-bin) when it is installed.
 * Downloading a browser is not an option on a kiosk; the SVG alone is always available.
 */
export function svgToPng(svg: string, command = process.env.RSVG_CONVERT ?? 'rsvg-convert'): Promise<PngResult> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, ['--format', 'png', '--background-color', 'white'], { stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ ok: false, reason: `cannot start ${command}: ${String(error)}` });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let settled = false;
    const finish = (result: PngResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish({ ok: false, reason: `${command} took longer than ${RENDER_TIMEOUT_MS} ms` });
    }, RENDER_TIMEOUT_MS);
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish({ ok: false, reason: error.code === 'ENOENT' ? `${command} not found (apt install librsvg2-bin)` : error.message });
    });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > PNG_BYTES_MAX) {
        child.kill('SIGKILL');
        finish({ ok: false, reason: 'PNG larger than 32 MiB' });
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString();
    });
    child.on('close', (code) => {
      if (code === 0) finish({ ok: true, png: Buffer.concat(chunks) });
      else finish({ ok: false, reason: `${command} exited with ${code}: ${stderr.trim()}` });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(svg);
  });
}
