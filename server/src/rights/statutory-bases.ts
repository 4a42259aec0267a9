// Curated Indian statutes that commonly oblige a fiduciary to keep personal data, offered to staff
// when they deny an erasure request (DPDP Act s. 8(7) and s. 12(3): erase unless retention is
// necessary for compliance with any law). This is a starting point for the DPO, not legal advice:
// every entry says so, and each citation must be checked against the current text by counsel
// before an erasure request is denied on it.

export interface StatutoryBasis {
  suggestionId: string;
  statute: string;
  citation: string;
  /** The main sector; `general` applies to every organisation. */
  sector: string;
  /** Every sector the entry is offered for (the `sector` filter matches any of them). */
  sectors: string[];
  retentionPeriod: string;
  description: string;
  caution: string;
}

const CAUTION =
  "Curated reference, not legal advice: confirm the provision, its current amendments and whether it applies to this record with counsel before denying an erasure request on it.";

type Entry = Omit<StatutoryBasis, "caution">;

const ENTRIES: readonly Entry[] = [
  {
    suggestionId: "dpdp-rules-2025-r8-logs",
    statute: "Digital Personal Data Protection Rules, 2025",
    citation: "Rule 8(3) read with Rule 6(1)(e)",
    sector: "general",
    sectors: ["general"],
    retentionPeriod: "At least one year from the processing",
    description:
      "Personal data, associated traffic data and logs of processing are kept for at least one year for the purposes the Rules specify; Guard keeps consent records and their audit hashes on this basis.",
  },
  {
    suggestionId: "income-tax-1961-s44aa-r6f",
    statute: "Income-tax Act, 1961, with the Income-tax Rules, 1962",
    citation: "Section 44AA; Rule 6F(5) of the Income-tax Rules, 1962",
    sector: "general",
    sectors: ["general"],
    retentionPeriod: "Six years from the end of the relevant assessment year",
    description:
      "Books of account and documents of specified professions and businesses (invoices, receipts, customer billing records). The Income-tax Act, 2025 replaces the 1961 Act from 1 April 2026: check the corresponding provision for later tax years.",
  },
  {
    suggestionId: "companies-2013-s128-5",
    statute: "Companies Act, 2013",
    citation: "Section 128(5)",
    sector: "general",
    sectors: ["general"],
    retentionPeriod: "Eight financial years immediately preceding the current financial year",
    description:
      "Books of account and relevant vouchers of a company, which can include customer transaction and billing records.",
  },
  {
    suggestionId: "cgst-2017-s36",
    statute: "Central Goods and Services Tax Act, 2017",
    citation: "Section 36",
    sector: "general",
    sectors: ["general"],
    retentionPeriod:
      "Seventy-two months from the due date of the annual return for the year the records relate to",
    description:
      "Accounts and records a registered person keeps under the Act, including tax invoices naming the recipient.",
  },
  {
    suggestionId: "pmla-2002-s12",
    statute: "Prevention of Money-laundering Act, 2002",
    citation:
      "Section 12(1), (3) and (4); Prevention of Money-laundering (Maintenance of Records) Rules, 2005",
    sector: "banking",
    sectors: [
      "banking",
      "finance",
      "nbfc",
      "payments",
      "securities",
      "insurance",
      "real_estate",
      "virtual_assets",
    ],
    retentionPeriod:
      "Five years from the date of the transaction (transaction records); five years after the business relationship ends or the account closes, whichever is later (identity records)",
    description:
      "Reporting entities (banks, financial institutions, intermediaries and others the Act names) keep transaction records and client identification records.",
  },
  {
    suggestionId: "rbi-kyc-md-2016-record-management",
    statute: "Reserve Bank of India, Master Direction - Know Your Customer (KYC) Direction, 2016",
    citation: "Chapter on Record Management (paragraph 46, as amended)",
    sector: "banking",
    sectors: ["banking", "finance", "nbfc", "payments"],
    retentionPeriod:
      "At least five years from the transaction; identification records at least five years after the business relationship ends",
    description:
      "KYC and transaction records of customers of RBI-regulated entities, kept so they can be produced to competent authorities.",
  },
  {
    suggestionId: "banking-regulation-1949-s45y",
    statute:
      "Banking Regulation Act, 1949, with the Banking Companies (Period of Preservation of Records) Rules, 1985",
    citation: "Section 45Y; the Rules of 1985",
    sector: "banking",
    sectors: ["banking"],
    retentionPeriod: "Five, eight or ten years depending on the class of record (see the Rules)",
    description: "Ledgers, registers, vouchers and other records of banking companies.",
  },
  {
    suggestionId: "irdai-insurance-records-2015",
    statute:
      "Insurance Regulatory and Development Authority of India (Maintenance of Insurance Records) Regulations, 2015",
    citation: "Regulation 3 (as amended, and IRDAI master circulars that now carry it)",
    sector: "insurance",
    sectors: ["insurance"],
    retentionPeriod:
      "A minimum period after the policy ends or the claim is settled, and until any litigation on it ends (confirm the current figure)",
    description:
      "Policy, proposal and claim records of insurers, including the policyholder's personal data.",
  },
  {
    suggestionId: "dot-unified-licence-cdr",
    statute: "Unified Licence (Department of Telecommunications), licence conditions",
    citation:
      "Security conditions on call detail and IP detail records, as amended by DoT on 21 December 2021",
    sector: "telecom",
    sectors: ["telecom", "isp"],
    retentionPeriod: "At least two years",
    description:
      "Commercial and call detail records, exchange detail records and IP detail records of telecom and internet service licensees.",
  },
  {
    suggestionId: "cert-in-directions-2022",
    statute:
      "CERT-In Directions under section 70B(6) of the Information Technology Act, 2000 (28 April 2022)",
    citation: "Directions (iv) and (v)",
    sector: "technology",
    sectors: ["technology", "cloud", "data_centre", "vpn", "telecom", "isp", "intermediary"],
    retentionPeriod:
      "ICT system logs: a rolling 180 days; subscriber and customer records of data centres, VPS, cloud and VPN providers: five years or longer as the law requires",
    description:
      "Logs of ICT systems, and customer records of the named service providers, kept for cyber-incident response.",
  },
  {
    suggestionId: "it-intermediary-rules-2021-r3-1-h",
    statute: "Information Technology (Intermediary Guidelines and Digital Media Ethics Code) Rules, 2021",
    citation: "Rule 3(1)(h)",
    sector: "intermediary",
    sectors: ["intermediary", "social_media", "ecommerce"],
    retentionPeriod: "180 days after the registration is cancelled or withdrawn",
    description: "Information an intermediary collected to register a user.",
  },
  {
    suggestionId: "imc-ethics-2002-r1-3-1",
    statute: "Indian Medical Council (Professional Conduct, Etiquette and Ethics) Regulations, 2002",
    citation: "Regulation 1.3.1",
    sector: "health",
    sectors: ["health"],
    retentionPeriod: "Three years from the start of treatment (indoor patients)",
    description:
      "Medical records of indoor patients kept by registered medical practitioners; state clinical-establishment rules and medico-legal practice often require longer.",
  },
  {
    suggestionId: "clinical-establishments-rules-2012-r9",
    statute:
      "Clinical Establishments (Registration and Regulation) Act, 2010, with the Clinical Establishments (Central Government) Rules, 2012",
    citation: "Rule 9(iv)",
    sector: "health",
    sectors: ["health"],
    retentionPeriod: "As the Rules and the standards notified under the Act require",
    description:
      "Registered clinical establishments maintain and provide electronic medical or health records of patients.",
  },
  {
    suggestionId: "pcpndt-1994-s29",
    statute: "Pre-Conception and Pre-Natal Diagnostic Techniques (Prohibition of Sex Selection) Act, 1994",
    citation: "Section 29",
    sector: "health",
    sectors: ["health"],
    retentionPeriod: "Two years, or longer as prescribed, and until any proceedings end",
    description:
      "Records of genetic counselling centres, laboratories and clinics, including patient records and forms.",
  },
];

const STATUTORY_BASES: readonly StatutoryBasis[] = ENTRIES.map((entry) => ({
  ...entry,
  caution: CAUTION,
}));

/**
 * Suggestions for one sector (case-insensitive), always with the general ones that apply to every
 * organisation; every suggestion when no sector is given.
 */
export function statutoryBasisSuggestions(sector?: string): StatutoryBasis[] {
  if (sector === undefined) return [...STATUTORY_BASES];
  const wanted = sector
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  return STATUTORY_BASES.filter((s) => s.sectors.includes("general") || s.sectors.includes(wanted));
}
