import { api } from './api.ts';

/** The merchant's terminals by id, for the lists' terminal filter and column (the first 100: a merchant's counters). */
export async function terminalNames(): Promise<Map<string, string>> {
  const page = await api('GET', '/api/merchant/terminals', { query: { limit: 100 } });
  return new Map(page.data.map((terminal) => [terminal.id, terminal.name]));
}
