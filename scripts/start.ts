// `npm start`: the sync server on the embedded database (PGlite in ./data unless DATABASE_URL is
// set). The terminal joins this command when it lands (see README).
import { runFromEnvironment } from '../sync-server/src/main.ts';

await runFromEnvironment();
