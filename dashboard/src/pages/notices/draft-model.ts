// The draft editor's form state and its conversion to and from the contract's NoticeDraftInput.
// Pure functions, so what the editor sends is exactly what the user typed: empty texts are left
// out (a draft may be incomplete; the API refuses empty strings), everything else goes as is.
import type { Schemas } from "../../api/client.js";

export const TEXT_FIELDS = ["title", "body", "withdrawal", "rights", "complaint"] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

export const TEXT_LABELS: Record<TextField, string> = {
  title: "Title",
  body: "Body",
  withdrawal: "How to withdraw consent",
  rights: "How to exercise your rights",
  complaint: "How to complain to the Data Protection Board",
};

export interface PurposeForm {
  /** A stable React key: purposes have no id and may be renamed or reordered. */
  id: string;
  purpose: string;
  personalDataDescription: string;
  /** "" = not declared (the purpose's label decides), else "yes" / "no". */
  tracking: "" | "yes" | "no";
  dataTypes: string[];
}

export interface DraftForm {
  itemized: PurposeForm[];
  languages: string[];
  content: Record<string, Record<TextField, string>>;
}

type DraftContent = Pick<Schemas["NoticeDraft"], "itemized" | "content" | "languages">;

let nextId = 0;
export const newPurposeId = (): string => `purpose-${++nextId}`;

export const emptyPurpose = (): PurposeForm => ({
  id: newPurposeId(),
  purpose: "",
  personalDataDescription: "",
  tracking: "",
  dataTypes: [],
});

export const emptyTexts = (): Record<TextField, string> => ({
  title: "",
  body: "",
  withdrawal: "",
  rights: "",
  complaint: "",
});

/** The form for a saved draft, or for a published version's content (to edit it as the next draft). */
export function formFrom(source: DraftContent | undefined): DraftForm {
  if (!source) return { itemized: [emptyPurpose()], languages: ["en"], content: { en: emptyTexts() } };
  const listed = source.languages.length > 0 ? source.languages : Object.keys(source.content);
  // A new notice's draft is empty: start the editor with one purpose and English to fill in.
  const languages = listed.length > 0 ? listed : ["en"];
  const content: DraftForm["content"] = {};
  for (const language of languages) content[language] = { ...emptyTexts(), ...source.content[language] };
  if (source.itemized.length === 0) return { itemized: [emptyPurpose()], languages, content };
  return {
    itemized: source.itemized.map((item) => ({
      id: newPurposeId(),
      purpose: item.purpose,
      personalDataDescription: item.personalDataDescription,
      tracking: item.tracking === undefined ? "" : item.tracking ? "yes" : "no",
      dataTypes: item.dataTypes ?? [],
    })),
    languages,
    content,
  };
}

const isBlank = (item: PurposeForm): boolean =>
  item.purpose === "" &&
  item.personalDataDescription === "" &&
  item.tracking === "" &&
  item.dataTypes.length === 0;

/** What PUT …/draft receives. */
export function draftInput(form: DraftForm): Schemas["NoticeDraftInput"] {
  const content: NonNullable<Schemas["NoticeDraftInput"]["content"]> = {};
  for (const language of form.languages) {
    const texts = form.content[language] ?? emptyTexts();
    const entry: Partial<Record<TextField, string>> = {};
    for (const field of TEXT_FIELDS) if (texts[field] !== "") entry[field] = texts[field];
    content[language] = entry;
  }
  const input: Schemas["NoticeDraftInput"] = { content };
  // The contract wants 1-100 purposes when `itemized` is sent: only blank rows mean "not itemised
  // yet". Otherwise every row goes, so an error's index (`itemized[1].purpose`) is the row shown.
  if (!form.itemized.every(isBlank)) {
    input.itemized = form.itemized.map((item) => ({
      purpose: item.purpose,
      personalDataDescription: item.personalDataDescription,
      ...(item.tracking === "" ? {} : { tracking: item.tracking === "yes" }),
      ...(item.dataTypes.length > 0 ? { dataTypes: item.dataTypes } : {}),
    }));
  }
  return input;
}

/** The editor's input names, which are the API's field names (`itemized[1].purpose`, `content.hi.title`). */
export const purposeField = (
  index: number,
  key: "purpose" | "personalDataDescription" | "dataTypes" | "tracking",
) => `itemized[${index}].${key}`;
export const textField = (language: string, field: TextField) => `content.${language}.${field}`;

/** Every field name the editor shows, so an error naming none of them is shown on its own. */
export function formFieldNames(form: DraftForm): string[] {
  return [
    ...form.itemized.flatMap((_, i) => [
      purposeField(i, "purpose"),
      purposeField(i, "personalDataDescription"),
      purposeField(i, "dataTypes"),
      purposeField(i, "tracking"),
    ]),
    ...form.languages.flatMap((language) => TEXT_FIELDS.map((field) => textField(language, field))),
  ];
}
