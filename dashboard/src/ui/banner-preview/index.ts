export {
  asBannerSettings,
  BannerPreview,
  toBannerNotice,
  type PreviewNotice,
  type PreviewTexts,
} from "./BannerPreview.js";
export type { BannerSettings } from "../../../../banner/src/types.js";
