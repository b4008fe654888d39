// The cuttable TCP relay lives with the server's test helpers (its fault tests cut the database too).
export { type Relay, startRelay } from '@tapline/sync-server/testing';
