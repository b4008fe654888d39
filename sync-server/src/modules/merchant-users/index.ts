export { merchantUserRoutes } from './routes.ts';
export { merchantKeyRoutes } from './keys.ts';
export { salesRoutes } from './sales.ts';
export { sessionResolver } from './service.ts';
export { assertEmailFree, inviteUser } from './service.ts';
