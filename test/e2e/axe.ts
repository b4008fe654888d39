// Accessibility checks in the kiosk's Chromium tests: axe-core's own source injected into the
// page (no network), run on the whole document; serious and critical violations fail the test.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core on the page as it is now and fails on any serious or critical violation. */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  // Evaluated rather than added as a <script>: the kiosk's CSP (script-src 'self') refuses inline scripts.
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(
    'window.axe.run(document, { resultTypes: ["violations"] }).then((results) => results.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))',
  );
  const blocking = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    blocking.map((violation) => `${violation.impact} ${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`),
    [],
    `accessibility of ${screen}`,
  );
}
