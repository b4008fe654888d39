/** The error body of every 4xx and 5xx answer (CONTRACT.md, Errors). */
export interface ErrorBody {
  error: string;
  code: string;
  details?: unknown[];
}
