/**
 * What the inspector page does with its one-time link (`/session?token=…`):
 * POSTs the token to `/api/session` from its own origin, which answers the
 * session id. Any client can do the same: an attacker that learnt the link.
 */
export function spendLink(link: string): Promise<Response> {
  const url = new URL(link);
  return fetch(`${url.origin}/api/session`, {
    method: 'POST',
    headers: { origin: url.origin, 'content-type': 'application/json' },
    body: JSON.stringify({ token: url.searchParams.get('token') }),
  });
}
