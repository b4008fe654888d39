/** The subscriptions module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { startSubscriptionJobs, subscriptionRoutes } from './routes.ts';
export { subscriptionGiftPeriod } from './gifts.ts';
export { activationsOf, findActivation, findPlan, insertActivation, insertPlan, latestActivationEnd, listActivations, listPlans, updatePlan } from './store.ts';
export type { ActivationRow, PlanRow } from './store.ts';
