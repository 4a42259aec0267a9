// The offline domain's principal-facing page modules (the QR link page, the POS page, the
// withdrawal page), registered by the composition root (app.ts) like web/'s plugins. A sub-area adds
// its module to the list (one line). Only app.ts imports this file, so the toolkit files (html.ts,
// language.ts, notice-block.ts, pages.ts) never import a page module and no import cycle arises.
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app.js";
import { registerPrincipalPages, type PrincipalPageModule } from "./pages.js";
import { withdrawalPages } from "../withdrawal/routes.js";
import { posPages } from "../pos/page.js";
import { linkPages } from "../links/page.js";

const OFFLINE_PAGE_MODULES: PrincipalPageModule[] = [linkPages, posPages, withdrawalPages];

/** Registers every offline page module on `app` (called once, by createApp). */
export function registerOfflinePages(app: FastifyInstance, ctx: AppContext): void {
  registerPrincipalPages(app, ctx, OFFLINE_PAGE_MODULES);
}
