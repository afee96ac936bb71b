/**
 * The browser inspector's session credential, named once for the page, its
 * server and the masker. It travels in a request header the page sets itself,
 * never in a cookie: cookies are not isolated by port, so every page served
 * on 127.0.0.1 (the dev server, anything the user runs) would receive one,
 * and could set one.
 */
export const INSPECTOR_SESSION_HEADER = 'x-median-dev-session';

/** The cookie earlier versions used: a browser may still hold it and send it to the proxy. */
export const LEGACY_INSPECTOR_COOKIE = 'median_dev_inspector';

/** Text a record's JSON must contain for maskInspectorCredentials to change anything. */
export const INSPECTOR_CREDENTIAL_TEXT = /x-median-dev-session|median_dev_inspector/i;

const LEGACY_COOKIE_VALUE = new RegExp(`((?:^|;)\\s*${LEGACY_INSPECTOR_COOKIE}\\s*=\\s*)([^;]*?)(?=\\s*(?:;|$))`, 'gi');

/**
 * An inspector credential in a recorded header masked by `maskValue`: the
 * whole value of the session header, the legacy cookie's value in a
 * `cookie` header; any other header as it is.
 */
export function maskInspectorCredentials(headerName: string, value: string, maskValue: (credential: string) => string): string {
  const name = headerName.toLowerCase();
  if (name === INSPECTOR_SESSION_HEADER) return value.trim() === '' ? value : maskValue(value.trim());
  if (name === 'cookie') return value.replace(LEGACY_COOKIE_VALUE, (_all, head: string, credential: string) => `${head}${credential === '' ? '' : maskValue(credential)}`);
  return value;
}
