"""Regenerate the PDF and Word documents of the Riverside Health corpus.

    .venv/bin/python benchmarks/answers/riverside/build_binaries.py

The text of the laboratory consumables price list and the purchasing policy (PDF), the on-call
rota and the EPR downtime procedure (Word) lives here; benchmarks/answers/corpus_tools/binaries.py
writes them to docs/, byte-identically.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/answers: corpus_tools

from corpus_tools.binaries import DocxContent, DocxTable, PdfSections, PdfTable, build

FIXED_DATE = datetime(2026, 1, 12, 8, 30, 0, tzinfo=UTC)
COMPANY = "Riverside Health"  # names the creator and heads each PDF footer

# --------------------------------------------------------------------------------------
# 1. Laboratory consumables price list (PDF, table continuing over two pages)
# --------------------------------------------------------------------------------------

PRICE_TITLE = "Riverside Pathology Laboratory - Consumables Price List 2026"
PRICE_AUTHOR = "Graham Holt, Laboratory IT Manager, for Laboratory Stores"

PRICE_INTRO = [
    "Document RPL-PL-2026, issue 1. Compiled by Laboratory Stores at Riverside Pathology "
    "Laboratory (Kingsmead Park) with Procurement, and issued on 12 January 2026. Valid for "
    "orders placed between 1 January 2026 and 31 December 2026.",
    "The list gives the agreed 2026 prices for the consumables that wards, clinics and the "
    "laboratory order most often from Laboratory Stores. Prices are in GBP per pack, "
    "excluding VAT, and are fixed for 2026 under the regional pathology consumables "
    "framework. Lead time is in working days from order to delivery at Kingsmead Park. "
    "'Reorder at' is the stock level, in packs, at which Laboratory Stores reorders.",
    "Analysers, other laboratory equipment and the service contracts for them are not on "
    "this list; they are bought through Procurement under separate contracts.",
    "Wards and clinics order through RiverBuy using the item code. Because the prices are "
    "already agreed, no quotes are needed, but each order still needs approval under the "
    "Purchasing and Approval Limits Policy (PROC-POL-02).",
]

PRICE_HEADER = (
    "Code",
    "Item",
    "Supplier",
    "Pack",
    "Price per pack (GBP)",
    "Lead time (days)",
    "Reorder at",
)

PRICE_ROWS = [
    (
        "RPL-1001",
        "Blood collection tube, serum gel (SST) 5 mL",
        "Medlyne Supplies",
        "100",
        "14.80",
        "5",
        "120",
    ),
    (
        "RPL-1002",
        "Blood collection tube, EDTA 4 mL",
        "Medlyne Supplies",
        "100",
        "12.60",
        "5",
        "150",
    ),
    (
        "RPL-1003",
        "Blood collection tube, sodium citrate 2.7 mL",
        "Medlyne Supplies",
        "100",
        "16.40",
        "5",
        "60",
    ),
    (
        "RPL-1004",
        "Blood collection tube, fluoride oxalate 2 mL",
        "Medlyne Supplies",
        "100",
        "13.90",
        "5",
        "40",
    ),
    (
        "RPL-1005",
        "Blood collection tube, lithium heparin 4 mL",
        "Medlyne Supplies",
        "100",
        "13.20",
        "5",
        "80",
    ),
    (
        "RPL-1010",
        "Safety blood collection needle 21G",
        "Medlyne Supplies",
        "100",
        "9.75",
        "4",
        "200",
    ),
    ("RPL-1011", "Winged blood collection set 23G", "Medlyne Supplies", "50", "18.50", "4", "60"),
    (
        "RPL-1020",
        "Blood culture bottle, aerobic",
        "Pennant Microbiology",
        "50",
        "142.00",
        "10",
        "30",
    ),
    (
        "RPL-1021",
        "Blood culture bottle, anaerobic",
        "Pennant Microbiology",
        "50",
        "142.00",
        "10",
        "30",
    ),
    (
        "RPL-1022",
        "Blood culture bottle, paediatric",
        "Pennant Microbiology",
        "50",
        "156.00",
        "10",
        "8",
    ),
    (
        "RPL-1030",
        "Urine container 30 mL, boric acid",
        "Brightwell Labware",
        "250",
        "31.25",
        "7",
        "40",
    ),
    (
        "RPL-1031",
        "Universal container 30 mL, plain",
        "Brightwell Labware",
        "500",
        "42.00",
        "7",
        "30",
    ),
    (
        "RPL-1032",
        "Transport swab, Amies with charcoal",
        "Pennant Microbiology",
        "100",
        "38.60",
        "7",
        "50",
    ),
    ("RPL-1033", "Viral transport swab kit", "Pennant Microbiology", "50", "47.50", "10", "40"),
    (
        "RPL-1040",
        "Specimen bag, biohazard, with request pocket",
        "Brightwell Labware",
        "1000",
        "26.40",
        "7",
        "25",
    ),
    ("RPL-1041", "Sharps bin 5 L", "Brightwell Labware", "20", "34.80", "7", "15"),
    ("RPL-1050", "Pipette tips 200 uL, racked", "Calder Scientific", "960", "21.90", "7", "40"),
    ("RPL-1051", "Pipette tips 1000 uL, racked", "Calder Scientific", "768", "24.30", "7", "30"),
    ("RPL-1052", "Transfer pipette 3 mL, sterile", "Calder Scientific", "500", "17.60", "7", "20"),
    ("RPL-1060", "Microscope slides, frosted end", "Calder Scientific", "72", "6.40", "5", "60"),
    ("RPL-1061", "Cover glass 22 x 50 mm", "Calder Scientific", "1000", "11.80", "5", "20"),
    ("RPL-1062", "Gram stain kit", "Pennant Microbiology", "1 kit", "64.00", "10", "6"),
    ("RPL-1070", "Blood agar plates", "Pennant Microbiology", "20", "13.40", "3", "90"),
    ("RPL-1071", "CLED agar plates", "Pennant Microbiology", "20", "12.10", "3", "70"),
    ("RPL-1072", "Chromogenic urine agar plates", "Pennant Microbiology", "20", "28.90", "3", "30"),
    ("RPL-1080", "Potassium ISE electrode", "Northgate Diagnostics", "1", "386.00", "21", "4"),
    ("RPL-1081", "Sodium ISE electrode", "Northgate Diagnostics", "1", "412.00", "21", "4"),
    ("RPL-1082", "Reference electrode", "Northgate Diagnostics", "1", "298.00", "21", "3"),
    (
        "RPL-1090",
        "Troponin I high-sensitivity reagent pack (100 tests)",
        "Northgate Diagnostics",
        "1",
        "465.00",
        "14",
        "12",
    ),
    (
        "RPL-1091",
        "CRP reagent pack (400 tests)",
        "Northgate Diagnostics",
        "1",
        "118.00",
        "14",
        "10",
    ),
    (
        "RPL-1092",
        "HbA1c reagent pack (250 tests)",
        "Northgate Diagnostics",
        "1",
        "284.00",
        "14",
        "6",
    ),
    (
        "RPL-1093",
        "Quality control serum, levels 1 and 2",
        "Northgate Diagnostics",
        "12 vials",
        "176.00",
        "14",
        "4",
    ),
    (
        "RPL-1100",
        "Haematology analyser cleaning solution 5 L",
        "Northgate Diagnostics",
        "1",
        "88.50",
        "10",
        "8",
    ),
    ("RPL-1101", "Haematology diluent 20 L", "Northgate Diagnostics", "1", "62.00", "10", "12"),
    (
        "RPL-1110",
        "Barcode sample labels, thermal, 12 rolls",
        "Brightwell Labware",
        "12 rolls",
        "54.00",
        "7",
        "10",
    ),
    ("RPL-1111", "Thermal printer ribbon", "Brightwell Labware", "10", "39.90", "7", "6"),
    (
        "RPL-1120",
        "Cool box for UN3373 specimen transport",
        "Brightwell Labware",
        "1",
        "74.00",
        "14",
        "5",
    ),
]

PRICE_FOOTNOTE = (
    "Questions about this list: Laboratory Stores, extension 3310, or Graham Holt. Items not "
    "on the list are quoted on request through Procurement. Next issue: January 2027."
)


PRICE_LIST = PdfTable(
    "lab-consumables-price-list-2026.pdf",
    title=PRICE_TITLE,
    subject="Prices, lead times and reorder levels for laboratory consumables, 2026",
    author=PRICE_AUTHOR,
    footer="RPL-PL-2026",
    intro=PRICE_INTRO,
    header=PRICE_HEADER,
    rows=PRICE_ROWS,
    footnote=PRICE_FOOTNOTE,
    columns=(17, 62, 36, 14, 20, 16, 17),
    align=("LEFT", "LEFT", "LEFT", "RIGHT", "RIGHT", "RIGHT", "RIGHT"),
    fill=(232, 240, 236),
    margins=(14, 16, 14),
    title_size=15,
)


# --------------------------------------------------------------------------------------
# 2. Purchasing and approval limits policy (PDF, prose over 2+ pages)
# --------------------------------------------------------------------------------------

POLICY_TITLE = "Purchasing and Approval Limits Policy (PROC-POL-02, 2026)"

POLICY_META = (
    "Owner: Vikram Shah, Head of Procurement. Approved by Kwame Asante, Finance Director, on "
    "9 December 2025. Effective from 1 January 2026; replaces the 2023 version. All amounts "
    "are in GBP and exclude VAT."
)

POLICY_SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1. Purpose and scope",
        [
            "This policy sets out how Riverside Health buys goods and services, who may approve "
            "a purchase, and how many quotes are needed. It applies to all staff at Riverside "
            "General Hospital, St Brigid's Hospital, Eastmoor Community Hospital and Riverside "
            "Pathology Laboratory, and to every budget, including charitable funds and research "
            "grants. Drugs bought by Pharmacy under national contracts follow the pharmacy "
            "procurement procedure instead.",
            "The rule behind the whole policy: spend public money as if it were your own, be "
            "able to show why you chose a supplier, and never commit Riverside to a purchase "
            "you are not authorised to approve.",
        ],
    ),
    (
        "2. How to buy",
        [
            "All purchases are made through RiverBuy, our e-procurement system, and need a "
            "purchase order before the goods are delivered or the work starts. Riverside "
            "operates a 'no purchase order, no pay' rule: invoices without a matching purchase "
            "order are returned to the supplier unpaid.",
            "Items on an agreed price list or catalogue, for example the laboratory consumables "
            "price list, are ordered at the listed price and do not need quotes. They still "
            "need approval under section 3.",
            "Splitting an order into smaller orders to stay under an approval limit or a quote "
            "threshold is not allowed and is treated as a disciplinary matter.",
        ],
    ),
    (
        "3. Approval limits",
        [
            "The person approving an order in RiverBuy must hold a delegated limit at least as "
            "high as the total value of the order, including all deliveries under it. The limits "
            "are:",
            "- Up to 5,000: the budget holder.",
            "- Over 5,000 and up to 25,000: the head of department or head of service (for "
            "example the Laboratory Manager or the Head of Integration).",
            "- Over 25,000 and up to 100,000: the director responsible for the budget, together "
            "with the Head of Procurement.",
            "- Over 100,000 and up to 500,000: the Finance Director.",
            "- Over 500,000: the Riverside Health Board, on the recommendation of the Finance "
            "Director.",
            "Approvers may not approve orders for their own benefit or orders they raised "
            "themselves.",
        ],
    ),
    (
        "4. Quotes and tenders",
        [
            "For goods and services that are not on an agreed price list or framework, the "
            "number of quotes depends on the expected total value of the purchase:",
            "- Under 1,000: one quote or a published price is enough.",
            "- 1,000 to 9,999: two written quotes.",
            "- 10,000 to 49,999: three written quotes, compared on the RiverBuy quote form.",
            "- 50,000 and above: a formal tender run by Procurement, or a call-off from an "
            "approved framework agreement.",
            "If fewer quotes are obtained than required, for example because only one supplier "
            "can provide a compatible part, the reason must be recorded on a single-source "
            "justification form and approved by the Head of Procurement before the order is placed.",
        ],
    ),
    (
        "5. IT, software and medical devices",
        [
            "All IT hardware, software, cloud services and subscriptions, whatever their value, "
            "must be approved by Digital Services before the order is placed. New clinical "
            "systems, or changes to how a system is hosted, also need a decision from the Digital "
            "Design Authority. IT items must never be bought on a purchasing card.",
            "Medical devices, including devices that connect to the network, must be approved by "
            "Clinical Engineering before purchase so that they can be registered and, where "
            "needed, reviewed for connection to the medical device network.",
        ],
    ),
    (
        "6. Purchasing cards",
        [
            "Purchasing cards are issued to named staff for small, one-off purchases where "
            "RiverBuy cannot be used. The single transaction limit is 500 and the monthly limit "
            "is 2,500. Receipts must be uploaded to the card system within 10 working days. Cards "
            "must not be used for IT equipment or software, for services from individuals, or to "
            "pay an invoice that should have had a purchase order.",
        ],
    ),
    (
        "7. Emergency purchases out of hours",
        [
            "When something must be bought out of hours to keep patients safe or a service "
            "running, the on-call director may approve an emergency purchase of up to 20,000 by "
            "phone. The person placing the order records the approval and raises a retrospective "
            "purchase order in RiverBuy within 2 working days.",
        ],
    ),
    (
        "8. Contracts",
        [
            "Only Procurement may sign contracts with suppliers. Any contract longer than 3 years, "
            "or worth more than 100,000 over its life, needs the Finance Director's approval. "
            "Contracts that include the processing of patient data also need an information "
            "governance review before signature.",
            "New suppliers are set up in RiverBuy by Procurement only. Bank details are checked "
            "by a call-back to a known phone number before the first payment, and every change "
            "of bank details is checked the same way.",
        ],
    ),
    (
        "9. Gifts, hospitality and conflicts of interest",
        [
            "Staff involved in buying must declare any interest in a supplier on the register of "
            "interests each year and whenever their situation changes. Gifts from suppliers worth "
            "more than 25 must be declared on the register within 14 days; cash or vouchers are "
            "never accepted. Hospitality worth more than 75 needs the prior approval of your "
            "director. Nothing may be accepted from a supplier that is taking part in a live "
            "tender.",
        ],
    ),
    (
        "10. Responsibilities and questions",
        [
            "Budget holders are responsible for keeping within their budget. Procurement checks "
            "a sample of orders every month and reports breaches to the Finance Director. Internal "
            "audit reviews compliance with this policy every year.",
            "Questions about this policy go to Vikram Shah, Head of Procurement, or to the "
            "Procurement helpdesk on extension 6120. The policy is reviewed every year in "
            "November.",
        ],
    ),
]


PURCHASING_POLICY = PdfSections(
    "purchasing-and-approval-policy.pdf",
    title=POLICY_TITLE,
    subject="Approval limits, quotes and tenders, purchasing cards and emergency purchases",
    author="Vikram Shah, Head of Procurement",
    footer="PROC-POL-02 Purchasing and Approval Limits",
    meta=POLICY_META,
    sections=POLICY_SECTIONS,
)


# --------------------------------------------------------------------------------------
# 3. On-call rota (Word, table of weeks x rotas)
# --------------------------------------------------------------------------------------

ROTA_TITLE = "Digital Services On-Call Rota - Q2 2026 (April to June)"
ROTA_AUTHOR = "Rachel Okafor, Service Desk Manager"

ROTA_INTRO = [
    "Published 9 March 2026 by Rachel Okafor, Service Desk Manager, for the Digital Services "
    "on-call rotas. Covers 13 rota weeks: the first starts on Monday 6 April 2026 and the "
    "last starts on Monday 29 June 2026. The Q3 rota will be published separately.",
    "Each rota week runs from Monday 09:00 to the following Monday 09:00. Handover is a short "
    "Teams call at 09:00 on Monday between the outgoing and incoming engineers on each rota. "
    "The service desk and switchboard contact the on-call engineer for P1 and P2 tickets; the "
    "duty manager covers all three rotas and is the escalation point.",
]

ROTA_HEADER = (
    "Week commencing",
    "Integration (Larkspur)",
    "Infrastructure",
    "EPR application",
    "Duty manager",
    "Notes",
)

ROTA_ROWS = [
    (
        "6 Apr 2026",
        "Aisha Bello",
        "Ryan Cole",
        "Kieran Doyle",
        "Rachel Okafor",
        "Easter Monday bank holiday",
    ),
    ("13 Apr 2026", "Jake Morris", "Mei Chen", "Zara Ahmed", "Owen Gallagher", ""),
    (
        "20 Apr 2026",
        "Sofia Lindqvist",
        "Daniel Okoro",
        "Paul Greaves",
        "Declan Byrne",
        "Change window Tue 21 Apr (Larkspur archive volumes)",
    ),
    ("27 Apr 2026", "Tomasz Nowak", "Hannah Scott", "Kieran Doyle", "Lucy Brennan", ""),
    (
        "4 May 2026",
        "Priya Raman",
        "Ryan Cole",
        "Zara Ahmed",
        "Marcus Lee",
        "Early May bank holiday",
    ),
    ("11 May 2026", "Liam Foster", "Mei Chen", "Paul Greaves", "Rachel Okafor", ""),
    ("18 May 2026", "Aisha Bello", "Daniel Okoro", "Kieran Doyle", "Owen Gallagher", ""),
    (
        "25 May 2026",
        "Jake Morris",
        "Hannah Scott",
        "Zara Ahmed",
        "Declan Byrne",
        "Spring bank holiday",
    ),
    (
        "1 Jun 2026",
        "Sofia Lindqvist",
        "Ryan Cole",
        "Paul Greaves",
        "Lucy Brennan",
        "Generator test Tue 2 Jun",
    ),
    ("8 Jun 2026", "Tomasz Nowak", "Mei Chen", "Kieran Doyle", "Marcus Lee", ""),
    ("15 Jun 2026", "Priya Raman", "Daniel Okoro", "Zara Ahmed", "Rachel Okafor", ""),
    ("22 Jun 2026", "Liam Foster", "Hannah Scott", "Paul Greaves", "Owen Gallagher", ""),
    ("29 Jun 2026", "Aisha Bello", "Ryan Cole", "Kieran Doyle", "Declan Byrne", "Last week of Q2"),
]

ROTA_NOTES: list[tuple[str, str | None]] = [
    ("On-call phones", None),
    ("Integration on-call: 07700 900412", "List Bullet"),
    ("Infrastructure on-call: 07700 900413", "List Bullet"),
    ("EPR application on-call: 07700 900414", "List Bullet"),
    ("Duty manager: 07700 900415", "List Bullet"),
    ("Swaps and changes", None),
    (
        "Swaps are allowed when both engineers agree. Tell the duty manager for both weeks at "
        "least 48 hours before the swap and email Rachel Okafor, who updates this document.",
        "List Bullet",
    ),
    (
        "If you are ill while on call, phone the duty manager straight away; the duty manager "
        "finds cover and tells the service desk.",
        "List Bullet",
    ),
    (
        "Nobody may be on call on two rotas in the same week. Engineers on the integration rota "
        "need their own adm- account and hardware token working before their week starts.",
        "List Bullet",
    ),
    ("Payment", None),
    (
        "The current weekly allowance and call-out payments apply. A proposal to change them is "
        "under review with the Joint Staff Partnership Forum; the rota for Q3 2026 will follow "
        "whatever is agreed.",
        "List Bullet",
    ),
]


ROTA = DocxTable(
    "clinical-it-on-call-rota-q2-2026.docx",
    title=ROTA_TITLE,
    subject="Weekly on-call engineers and duty managers for integration, infrastructure and EPR",
    author=ROTA_AUTHOR,
    intro=ROTA_INTRO,
    section="Rota",
    header=ROTA_HEADER,
    rows=ROTA_ROWS,
    notes=ROTA_NOTES,
)


# --------------------------------------------------------------------------------------
# 4. EPR downtime procedure (Word, headings and numbered lists)
# --------------------------------------------------------------------------------------

DOWNTIME_TITLE = "BC-07 Aster EPR Downtime Procedure"

DOWNTIME_CONTENT: list[tuple[str, str]] = [
    ("h0", DOWNTIME_TITLE),
    (
        "p",
        "Business continuity procedure BC-07, revision 4. Effective 1 November 2025. Owner: "
        "Lucy Brennan, EPR Application Manager. Approved by Dr Helen Marsh, Chief Clinical "
        "Information Officer.",
    ),
    ("h1", "Purpose"),
    (
        "p",
        "Aster EPR holds the medicines charts, observations, orders and results for every "
        "inpatient at Riverside General, St Brigid's and Eastmoor. This procedure makes sure "
        "that patient care carries on safely when the EPR cannot be used, and that nothing "
        "recorded on paper during the downtime is lost afterwards.",
    ),
    ("h1", "Types of downtime"),
    (
        "bullet",
        "Planned downtime: maintenance or upgrades announced in advance, normally in the Sunday "
        "02:00 to 04:00 window. Announced at least 10 working days ahead.",
    ),
    (
        "bullet",
        "Unplanned downtime: the EPR is unavailable, or too slow to use safely, at one or more "
        "hospitals for more than 15 minutes.",
    ),
    ("h1", "Declaring an unplanned downtime"),
    (
        "num",
        "Staff who cannot use the EPR phone the service desk on extension 5000. The service desk "
        "logs a P1 if a whole hospital is affected and pages the EPR application on-call engineer.",
    ),
    (
        "num",
        "The EPR on-call engineer confirms the fault within 15 minutes and advises the Site Duty "
        "Manager (the hospital's senior manager on duty) whether a quick fix is likely.",
    ),
    (
        "num",
        "The Site Duty Manager declares the downtime. Only the Site Duty Manager may declare it "
        "or stand it down.",
    ),
    (
        "num",
        "Switchboard sends the downtime alert by text to all ward managers and nurses in charge "
        "at that hospital and makes an overhead announcement in the emergency department.",
    ),
    ("h1", "During the downtime"),
    (
        "num",
        "Each ward opens its red downtime pack, which holds paper observation charts, paper "
        "prescription charts (form MM-12), lab request forms and admission forms.",
    ),
    (
        "num",
        "Within 30 minutes, the nurse in charge prints the current medicines chart and allergy "
        "list for every patient from the ward's red-labelled continuity PC. The continuity PC "
        "holds a copy that is at most 30 minutes old.",
    ),
    (
        "num",
        "Doctors prescribe on form MM-12. Every dose given is recorded on paper; nothing is "
        "recorded from memory later.",
    ),
    (
        "num",
        "Tests are requested on paper forms. The laboratory prints results to ward printers and "
        "keeps phoning critical results as usual.",
    ),
    (
        "num",
        "If the downtime lasts longer than 4 hours, the Site Duty Manager reviews with the "
        "emergency department whether ambulances should be diverted, and informs the CIO.",
    ),
    ("h1", "Recovery and back-entry"),
    (
        "num",
        "The EPR on-call engineer tells the Site Duty Manager when the system is stable. The "
        "Site Duty Manager stands the downtime down and switchboard sends the all-clear text.",
    ),
    (
        "num",
        "Before the next dose round, a doctor reviews each paper prescription chart and "
        "re-prescribes the medicines in the EPR.",
    ),
    (
        "num",
        "Nurses back-enter medicines given and observations from paper into the EPR within 24 "
        "hours of the all-clear. Results received on paper are checked against the EPR.",
    ),
    (
        "num",
        "Paper records from the downtime are sent to Health Records and scanned into the "
        "patient's record within 5 working days.",
    ),
    (
        "num",
        "The downtime is closed when the Site Duty Manager and the EPR Application Manager (or "
        "the EPR on-call engineer out of hours) both sign the downtime record form BC-07F.",
    ),
    ("h1", "Roles"),
    (
        "bullet",
        "Site Duty Manager: declares and stands down the downtime, decides on ambulance diversion.",
    ),
    (
        "bullet",
        "EPR on-call engineer: diagnoses, keeps the Site Duty Manager updated every 30 minutes.",
    ),
    (
        "bullet",
        "Nurse in charge: opens the downtime pack, prints from the continuity PC, leads back-entry.",
    ),
    (
        "bullet",
        "EPR Application Manager: owns this procedure, signs off recovery, reviews every downtime over 1 hour.",
    ),
]


DOWNTIME_PROCEDURE = DocxContent(
    "epr-downtime-procedure.docx",
    subject="Declaring, working through and recovering from an Aster EPR downtime",
    author="Lucy Brennan, EPR Application Manager",
    content=DOWNTIME_CONTENT,
)


DOCUMENTS = (PRICE_LIST, PURCHASING_POLICY, ROTA, DOWNTIME_PROCEDURE)

if __name__ == "__main__":
    build(Path(__file__).resolve().parent / "docs", DOCUMENTS, FIXED_DATE, COMPANY)
