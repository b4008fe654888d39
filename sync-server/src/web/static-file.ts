import { stat } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';

/** The file at `relativePath` inside `root`, or undefined when there is none or the path leaves `root`. */
export async function fileIn(root: string, relativePath: string): Promise<string | undefined> {
  const path = normalize(join(root, relativePath));
  if (path !== root && !path.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  try {
    return (await stat(path)).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}
