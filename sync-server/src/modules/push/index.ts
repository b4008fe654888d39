/** The push module's public entry: other modules, app.ts and sync/ import only this file. */
export { type CollectionSettler, type PushAnswer, type PushTerminal, type PushedDocument, type SettlementLimits, inCapturedOrder, inSavepoint, isTransientDatabaseError } from './contract.ts';
export { CAPTURED_AT_PROBLEM, CLOCK_SKEW_MS, type PolicyDecline, capturedInFuture, parseCapturedAt, schemaProblems, timeDecline } from './time-rules.ts';
