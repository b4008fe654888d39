// Module resolution hooks for the smoke test: the bundle's `electron` is the stand-in, and the
// packages it leaves external (serialport, electron-updater...) resolve as from the terminal
// workspace, as the packaged app's node_modules would provide them to a build in a temporary folder.
let standInUrl;
let workspaceUrl;

export function initialize(data) {
  standInUrl = data.standInUrl;
  workspaceUrl = data.workspaceUrl;
}

export async function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: standInUrl, shortCircuit: true };
  try {
    return await next(specifier, context);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || /^[./]|^node:/.test(specifier)) throw error;
    return next(specifier, { ...context, parentURL: workspaceUrl });
  }
}
