/** SPEC §2.1 defaults, in one place. */
export const DEFAULTS = Object.freeze({
  target: 'http://localhost:3000',
  route: '/api/median',
  port: 4141,
  inspectorPort: 4040,
  tunnel: 'localtunnel' as const,
  tunnelHost: 'https://localtunnel.me',
  medianApi: 'https://api.median.sh',
  envFile: '.env.local',
  dataDir: '.median-dev',
});

export const TUNNEL_PROVIDERS = ['localtunnel', 'none'] as const;
export type TunnelProviderName = (typeof TUNNEL_PROVIDERS)[number];
