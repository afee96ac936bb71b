/**
 * The adapter for `@ngrok/ngrok` (the ngrok agent as a Node library, a
 * native addon). It is an optional dependency: imported only when
 * `--tunnel ngrok` is chosen, so installing median-dev and every other
 * provider work without it. This is the only file that names the package.
 */
export interface NgrokListener {
  url(): string | null;
  close(): Promise<void>;
}

export interface NgrokForwardOptions {
  addr: string;
  authtoken: string;
  domain?: string;
  onStatusChange?: (status: string) => void;
  onLogEvent?: (data: string) => void;
}

export interface NgrokLibrary {
  forward(options: NgrokForwardOptions): Promise<NgrokListener>;
}

/** Loads the package, or resolves undefined when it is not installed. */
export async function loadNgrokLibrary(): Promise<NgrokLibrary | undefined> {
  const name = '@ngrok/ngrok';
  try {
    // A variable specifier: TypeScript does not need the package to build, and bundlers leave it alone.
    const loaded = (await import(name)) as { default?: NgrokLibrary; forward?: NgrokLibrary['forward'] };
    const forward = loaded.forward ?? loaded.default?.forward;
    return forward ? { forward: (options) => forward(options) } : undefined;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // Not installed (or its native part is missing for this platform): the provider says how to add it.
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return undefined;
    if (error instanceof Error && /Cannot find (module|native binding)|Failed to load native binding/i.test(error.message)) return undefined;
    throw error;
  }
}
