/** The payroll module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { payrollRoutes } from './routes.ts';
