/** The terminals module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { issuePairingCode, pairingAnswer } from './pairing.ts';
export { terminalRoutes } from './routes.ts';
export { countManagerPinAttempt, findTerminalName, lockManagerPin, managerPinIsSet, resetManagerPinFailures, setManagerPinHash } from './store.ts';
