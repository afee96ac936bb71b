import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [sveltekit()],
  // Vite answers 403 to a Host it does not know, and Median's calls come in with the tunnel's:
  // allow your tunnel's domain (localtunnel's here; add your ngrok or cloudflared one).
  server: { allowedHosts: ['.loca.lt'] },
});
