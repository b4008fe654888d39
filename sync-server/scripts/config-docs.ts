// npm run config:docs: writes docs/configuration.md from the configuration schema (SETTINGS in
// src/config.ts). config.test.ts fails while the committed file differs.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS, configurationReference } from '../src/config.ts';

const target = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
writeFileSync(target, configurationReference());
console.log(`docs/configuration.md: ${SETTINGS.length} settings`);
