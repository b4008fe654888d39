export * from './databases.ts';
export * from './server.ts';
