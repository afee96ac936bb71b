import { spawn } from 'node:child_process';

/**
 * The command that opens a URL in the default browser: `open` (macOS),
 * `explorer.exe` (Windows: it takes the URL as one argument, no shell
 * parsing), `xdg-open` elsewhere; a `BROWSER` command when one is set, as
 * many CLIs honour it.
 */
export function browserCommand(url: string, platform: NodeJS.Platform, browserEnv: string | undefined): { file: string; args: string[] } {
  if (browserEnv !== undefined && browserEnv.trim() !== '') return { file: browserEnv.trim(), args: [url] };
  if (platform === 'darwin') return { file: 'open', args: [url] };
  if (platform === 'win32') return { file: 'explorer.exe', args: [url] };
  return { file: 'xdg-open', args: [url] };
}

/** Starts the browser and does not wait for it; resolves false when the opener could not start. */
export function openInBrowser(url: string, platform: NodeJS.Platform, browserEnv: string | undefined): Promise<boolean> {
  const { file, args } = browserCommand(url, platform, browserEnv);
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(file, args, { detached: true, stdio: 'ignore', windowsHide: true });
    } catch {
      resolve(false); // an opener that cannot even be spawned: the caller prints the URL instead
      return;
    }
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
