// The drop-in merchants load on every checkout page: one standalone script within its size
// budget, and the page scripts as ES modules over shared chunks.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import { ensureWebBuilt } from './build.ts';

/** The drop-in's budget (README: "Take payments on a website"); it measured 23.5 KB, 9.6 KB gzipped with its words in four languages. */
const DROP_IN_BUDGET = { raw: 24 * 1024, gzip: 10 * 1024 };

const dir = join(mkdtempSync(join(tmpdir(), 'tapline-web-build-')), 'dist');
after(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

describe('the pages and drop-in build', () => {
  it('builds the drop-in as one standalone script within its budget, and keeps a fresh build', async () => {
    assert.equal(await ensureWebBuilt(dir), true);
    const dropIn = readFileSync(join(dir, 'sdk/service.js'));
    const gzip = gzipSync(dropIn, { level: 9 }).length;
    console.log(`sdk/service.js: ${dropIn.length} bytes, ${gzip} gzipped`);
    assert.ok(dropIn.length <= DROP_IN_BUDGET.raw, `${dropIn.length} bytes > ${DROP_IN_BUDGET.raw}`);
    assert.ok(gzip <= DROP_IN_BUDGET.gzip, `${gzip} gzipped bytes > ${DROP_IN_BUDGET.gzip}`);
    const text = dropIn.toString('utf8');
    assert.match(text, /^\(function\(\)\{/, 'an IIFE');
    assert.doesNotMatch(text, /\bimport\s*\(|^import |^export /m, 'nothing loaded besides itself');
    // The shared money format with only the ISO exponents, not currency-codes' names and countries.
    assert.match(text, /NGN:2/);
    assert.doesNotMatch(text, /Afghani/);
    // Its own words in each language of the catalogues, and nothing else of them nor their translator.
    for (const word of ['Tapline wallet', 'Portefeuille Tapline', 'Carteira Tapline', 'Pochi ya Tapline', 'Code PIN incorrect.']) assert.ok(text.includes(word), word);
    assert.ok(!text.includes('Tapline dashboard'), 'no dashboard words');
    assert.ok(!text.includes('Offline QR'), 'no other page\'s words');
    assert.doesNotMatch(text, /i18next/);
    assert.equal(await ensureWebBuilt(dir), false, 'a fresh build is not built again');
  });

  it('builds each page as an ES module importing the shared code from chunks', () => {
    for (const name of ['pos', 'pay', 'offline-qr']) {
      const page = readFileSync(join(dir, `pages/${name}.js`), 'utf8');
      assert.match(page, /from\s*["']\.\/chunks\//, name);
    }
    assert.match(readFileSync(join(dir, 'style.css'), 'utf8'), /\.card/);
  });
});
