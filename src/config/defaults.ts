/** SPEC §2.1 defaults, in one place. */
export const DEFAULTS = Object.freeze({
  target: 'http://localhost:3000',
  route: '/api/median',
  port: 4141,
  /** Not 4040: that is the ngrok agent's own inspector and API. */
  inspectorPort: 4142,
  tunnel: 'localtunnel' as const,
  tunnelHost: 'https://localtunnel.me',
  medianApi: 'https://api.median.sh',
  envFile: '.env.local',
  dataDir: '.median-dev',
});

export const TUNNEL_PROVIDERS = ['localtunnel', 'ngrok', 'cloudflared', 'ssh', 'auto', 'none'] as const;
export type TunnelProviderName = (typeof TUNNEL_PROVIDERS)[number];

/** What a tunnel URL change does to the dev server (`start --restart-on-url-change`). */
export const RESTART_ON_URL_CHANGE = ['auto', 'always', 'never'] as const;
export type RestartOnUrlChange = (typeof RESTART_ON_URL_CHANGE)[number];
