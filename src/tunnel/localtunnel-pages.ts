/**
 * The pages localtunnel's public server answers with instead of the tunnel,
 * from its observed behaviour (localtunnel/localtunnel issues #726 and #699:
 * outages; #598 and #663: the page for browsers):
 * - an outage: HTTP 503 with a "Tunnel Unavailable" page (also on `GET /?new`);
 * - browsers (a `Mozilla/…` user agent without the `bypass-tunnel-reminder`
 *   header) get a 401 HTML page, "Friendly Reminder", that asks for the
 *   "tunnel password" (the laptop's public IP) before passing them on.
 *   Median's calls are not a browser's and never see it.
 */
export type LocaltunnelPage = 'tunnel-unavailable' | 'reminder';

export function recognizeLocaltunnelPage(status: number, text: string): LocaltunnelPage | undefined {
  if (status === 503 && /Tunnel Unavailable/i.test(text)) return 'tunnel-unavailable';
  if (status === 401 && /Friendly Reminder|bypass-tunnel-reminder|tunnel password/i.test(text)) return 'reminder';
  return undefined;
}

/** What each page means for the user, and what to do. */
export const LOCALTUNNEL_PAGE_ADVICE: Readonly<Record<LocaltunnelPage, { says: string; fix: string }>> = Object.freeze({
  'tunnel-unavailable': {
    says: 'the localtunnel server answers 503 Tunnel Unavailable (an outage of the server, not of your laptop)',
    fix: 'median-dev keeps trying. If it lasts, use another provider: --tunnel cloudflared (no account), or --tunnel ngrok with a static domain.',
  },
  reminder: {
    says: 'loca.lt answered with its reminder page for browsers (401, asking for the tunnel password)',
    fix: 'Median’s calls do not get this page. To open the URL in a browser, enter your public IP as the password, or send the header bypass-tunnel-reminder: 1.',
  },
});
