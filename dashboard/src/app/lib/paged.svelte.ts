import { type Answer, type ListItem, type ListRoute, type Query, routeUrl } from '@tapline/shared/api';
import { Action } from './action.svelte.ts';
import { apiGet } from './api.ts';
import type { Words } from './i18n.ts';

/** A page of a list route as the server answers it. */
export type PageOf<P extends ListRoute> = Answer<'GET', P>;
/** The filters of a list route: its query fields, as the page's form holds them (empty: left out). */
export type Filters<P extends ListRoute> = { [K in Exclude<keyof Query<'GET', P>, 'limit' | 'offset'>]?: string };

/**
 * A list paged on the server: the page on screen and the filters' values (empty ones left out
 * of the query). A filter change starts again at the first page. The pager follows the page
 * the server answered, so rows and "21–22 of 22" never disagree while a page loads. The rows'
 * type is the route's (`ListItem<P>`): the page names the route, never a type.
 */
export class PagedList<P extends ListRoute> {
  page = $state<{ data: ListItem<P>[]; total: number; limit: number; offset: number }>({ data: [], total: 0, limit: 0, offset: 0 });
  readonly action: Action;
  /** Counts the loads: an answer that arrives after a newer request's (filters changed meanwhile) is dropped. */
  private latest = 0;

  constructor(
    words: () => Words,
    private readonly path: P,
    private readonly filters: () => Filters<P> = () => ({}),
    readonly limit = 20,
    /** How a page is read: the merchant session's `api` unless told (the operator pages send the admin token). */
    private readonly read: (url: string) => Promise<PageOf<P>> = (url) => apiGet(path, url),
  ) {
    this.action = new Action(words);
  }

  get offset(): number {
    return this.page.offset;
  }

  /** The list's query for `limit` rows from `offset`: also what an export walks. */
  query(limit: number, offset: number): string {
    return routeUrl(this.path, undefined, { limit, offset, ...(this.filters() as Record<string, string | undefined>) });
  }

  /** Every row of the list's filter, fetched 100 at a time (what an export writes). */
  async all(): Promise<ListItem<P>[]> {
    const rows: ListItem<P>[] = [];
    for (let from = 0; ; from += 100) {
      const chunk = await this.rows(this.query(100, from));
      rows.push(...chunk.data);
      if (from + 100 >= chunk.total || chunk.data.length === 0) return rows;
    }
  }

  load = (offset = this.page.offset): Promise<void> =>
    this.action.run(async () => {
      const request = ++this.latest;
      const page = await this.rows(this.query(this.limit, offset));
      if (request === this.latest) this.page = page;
    });

  move = (offset: number): void => {
    void this.load(offset);
  };

  refilter = (): void => this.move(0);

  private async rows(url: string): Promise<{ data: ListItem<P>[]; total: number; limit: number; offset: number }> {
    return (await this.read(url)) as { data: ListItem<P>[]; total: number; limit: number; offset: number };
  }
}
