/** The collections module's public entry (mobile money at the till): app.ts, rails and the till sales import only this file. */
import type { PolledJob } from '../../jobs/poller.ts';
import type { CollectionService } from './service.ts';
export { collectionRoutes, startCollectionJobs } from './routes.ts';
export { SANDBOX_PHONE_SUFFIXES, collectionService, maskPhone, normalisePhone, onCollectionOutcome, preparePayback } from './service.ts';
export type { CollectionService, TopUpCaller } from './service.ts';
export { type CollectionRow, type TopUpPurpose, findCollection, findProviderCollections, isCollectionId, listProviderCollectionsCreated, listWalletTopUps, lockCollections } from './store.ts';

declare module '../../context.ts' {
  interface AppContext {
    /** Mobile-money collections at the till; tests call collections.runOnce() (or collectionJobs.runOnce()). */
    collections: CollectionService;
    collectionJobs?: PolledJob<number>;
  }
}
