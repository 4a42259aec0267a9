// The principal-page toolkit's API (README.md in this folder): import from here.
export { escapeHtml, renderLayout, renderMessagePage, PAGE_STYLE, type LayoutOptions } from "./html.js";
export { chooseLanguage, languageInfo, localized } from "./language.js";
export { renderNoticeBlock, type NoticeForPage } from "./notice-block.js";
export {
  failurePage,
  formFields,
  queryParam,
  registerPrincipalPages,
  PRINCIPAL_PAGE_CSP,
  PRINCIPAL_PAGE_HEADERS,
  type PageResult,
  type PrincipalPageModule,
  type PrincipalPageRoute,
} from "./pages.js";
