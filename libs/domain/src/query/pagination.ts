import type { Pagination } from '@lx/contracts';
import type { Page } from './query-parameters';

/** What a list read found besides its items: the total (estimated past a size) and the next page's `after`. */
export interface Listed {
  total: number;
  totalEstimated: boolean;
  next?: string;
}

/** The pagination object of a list reply: the page applied, the total, and the flags that apply. */
export function paginationOf(page: Page, listed: Listed): Pagination {
  return {
    limit: page.limit,
    offset: page.offset,
    total: listed.total,
    ...(listed.totalEstimated && { totalEstimated: true as const }),
    ...(listed.next !== undefined && { next: listed.next }),
  };
}
