// What the reconciliation tests read from the admin API, typed from the OpenAPI document (its
// generated types in @tapline/shared/api), so a change of the record fails `npm run typecheck` here
// rather than being copied by hand into each test file.
import type { Answer } from '@tapline/shared/api';

export type Reconciliation = Answer<'GET', '/api/admin/rails/reconciliations/{id}'>;
export type Mismatch = Reconciliation['mismatches'][number];
