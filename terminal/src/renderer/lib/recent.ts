/** What a recent list needs of a replicated document (offline payments, gift card sales). */
export interface RecentDoc {
  id: string;
  status: string;
  declineCode?: string;
  capturedAt: string;
}
