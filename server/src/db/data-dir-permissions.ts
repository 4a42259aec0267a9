// The embedded database's files hold personal data and consent evidence, so they are the owner's
// alone: directories 0700, files 0600. PGlite does not make them so. Its file layer (Emscripten's
// NODEFS) chmods every file it creates to the mode it was asked for, and the cluster it unpacks on
// first start asks for 0666 (directories 0755); an explicit chmod is not narrowed by the process
// umask, so setting one would not help. Guard sets the modes itself instead.
import fs from "node:fs";
import path from "node:path";

/**
 * Takes group and other permissions off `root` and everything below it. Symbolic links are
 * neither followed nor changed, so nothing outside the tree is touched.
 */
export function makeTreePrivate(root: string): void {
  // POSIX modes only; Windows keeps its own access lists.
  if (process.platform === "win32") return;
  const pending = [root];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(next);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    if (stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== 0o700) chmod(next, 0o700);
      for (const name of fs.readdirSync(next)) pending.push(path.join(next, name));
    } else if (stat.mode & 0o077) {
      chmod(next, stat.mode & 0o700);
    }
  }
}

/**
 * Takes group and other permissions off the directory `root` itself (not what is below it): from
 * then on nothing below it is within other users' reach, whatever its own mode.
 */
export function makeDirectoryPrivate(root: string): void {
  if (process.platform === "win32") return;
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (stat.isDirectory() && (stat.mode & 0o777) !== 0o700) chmod(root, 0o700);
}

function chmod(file: string, mode: number): void {
  try {
    fs.chmodSync(file, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error;
    throw new Error(
      `${file} belongs to another user, so Guard cannot make it private to itself: ` +
        "give the data directory to the user Guard runs as (chown -R), or use another --data-dir.",
      { cause: error },
    );
  }
}
