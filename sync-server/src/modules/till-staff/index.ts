/** The till staff module's public entry: other modules, app.ts and sync/ import only this file. */
export { tillStaffRoutes } from './routes.ts';
export { staffDocument } from './service.ts';
export { staffAfter, staffByIds } from './store.ts';
export { shiftEventDocument, shiftEventSettler, terminalShiftEventsAfter } from './shifts.ts';
export { checkTillPin, tillPinVerifier } from './pin.ts';
export { checkedCashierId } from './cashiers.ts';
export { knownCashierIds } from './store.ts';
