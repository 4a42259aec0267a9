// What the RoPA tests share: a valid activity body and the wire shape of an activity.
export type Activity = {
  activityId: string;
  name: string;
  purpose: string;
  description: string | null;
  dataCategories: string[];
  legalBasis: string;
  recipients: { name: string; role: string; country?: string }[];
  storageLocation: string;
  crossesBorder: boolean;
  destinationCountries: string[];
  createdAt: number;
  updatedAt: number;
  archivedAt: number | null;
};

export const VALID = {
  name: "Order fulfilment",
  purpose: "Delivery",
  dataCategories: ["name", "address", "phone"],
  legalBasis: "consent",
  storageLocation: "AWS ap-south-1 (Mumbai)",
  crossesBorder: false,
};
