export { merchantUserRoutes } from './routes.ts';
export { merchantKeyRoutes } from './keys.ts';
export { sessionResolver } from './service.ts';
