export default defineNuxtConfig({
  // Nuxt's dev server is Vite's, which answers 403 to a Host it does not know, and Median's calls
  // come in with the tunnel's: allow your tunnel's domain (localtunnel's here; add your ngrok or cloudflared one).
  vite: { server: { allowedHosts: ['.loca.lt'] } },
});
