// The dashboard is served by Guard under /dashboard (server/src/web/dashboard.ts), from dist/.
// No inline script or style is emitted, so the server's strict CSP holds.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  base: "/dashboard/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The server reads every file of dist into memory; no source maps shipped to users.
    sourcemap: false,
    // Module preload polyfill is an inline-free script, but it is not needed by the browsers we serve.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: {
    // `npm run dev -w dashboard` against a `guard serve` on the default port.
    proxy: { "/api": "http://127.0.0.1:8080" },
  },
});
