/** The terminals module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { issuePairingCode, pairingAnswer } from './pairing.ts';
export { terminalRoutes } from './routes.ts';
export { countManagerPinAttempt, findTerminalName, lockManagerPin, managerPinIsSet, resetManagerPinFailures, setManagerPinHash } from './store.ts';
// The terminals table's one writer: its rows for the merchant's routes, its settings, its order of changes and its queue report for offline/ and sync/.
export { type TerminalRow, insertTerminal, listTerminals, nextTerminalSeq, recordQueuedCount, reserveTerminalSeqs, revokeTerminal, setTerminalLanguage, setTerminalName, setTerminalOfflineLimits, setTerminalTipping } from './store.ts';
