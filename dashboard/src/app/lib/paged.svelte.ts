import { Action } from './action.svelte.ts';
import { type Page, api } from './api.ts';
import type { Words } from './i18n.ts';

/**
 * A list paged on the server: the page on screen and the filters' values (empty ones left out
 * of the query). A filter change starts again at the first page. The pager follows the page
 * the server answered, so rows and "21–22 of 22" never disagree while a page loads.
 */
export class PagedList<T> {
  page = $state<Page<T>>({ data: [], total: 0, limit: 0, offset: 0 });
  readonly action: Action;
  /** Counts the loads: an answer that arrives after a newer request's (filters changed meanwhile) is dropped. */
  private latest = 0;

  constructor(
    words: () => Words,
    private readonly path: string,
    private readonly filters: () => Record<string, string> = () => ({}),
    readonly limit = 20,
    /** How a page is read: the merchant session's `api` unless told (the operator pages send the admin token). */
    private readonly read: <P>(path: string) => Promise<P> = (path) => api('GET', path),
  ) {
    this.action = new Action(words);
  }

  get offset(): number {
    return this.page.offset;
  }

  /** The list's query for `limit` rows from `offset`: also what an export walks. */
  query(limit: number, offset: number): string {
    const filters = Object.entries(this.filters()).filter(([, value]) => value !== '');
    const pairs = [['limit', String(limit)], ['offset', String(offset)], ...filters];
    return `${this.path}?${pairs.map(([name, value]) => `${name}=${encodeURIComponent(value!)}`).join('&')}`;
  }

  /** Every row of the list's filter, fetched 100 at a time (what an export writes). */
  async all(): Promise<T[]> {
    const rows: T[] = [];
    for (let from = 0; ; from += 100) {
      const chunk = await this.read<Page<T>>(this.query(100, from));
      rows.push(...chunk.data);
      if (from + 100 >= chunk.total || chunk.data.length === 0) return rows;
    }
  }

  load = (offset = this.page.offset): Promise<void> =>
    this.action.run(async () => {
      const request = ++this.latest;
      const page = await this.read<Page<T>>(this.query(this.limit, offset));
      if (request === this.latest) this.page = page;
    });

  move = (offset: number): void => {
    void this.load(offset);
  };

  refilter = (): void => this.move(0);
}
