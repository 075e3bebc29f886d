"""Regenerate the PDF and Word documents of the Northmill Foods corpus.

    .venv/bin/python benchmarks/answers/northmill/build_binaries.py

The text of the raw material specification summary and the shift pay policy (PDF), the supplier
scorecard, the Hollin Bridge cleaning schedule and the glass breakage procedure (Word) lives
here; benchmarks/answers/corpus_tools/binaries.py writes them to docs/, byte-identically.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/answers: corpus_tools

from corpus_tools.binaries import DocxContent, DocxTable, PdfSections, PdfTable, build, with_totals

FIXED_DATE = datetime(2026, 1, 12, 9, 0, 0, tzinfo=UTC)
COMPANY = "Northmill Foods"  # names the creator and heads each PDF footer

# --------------------------------------------------------------------------------------
# 1. Raw material specification summary (PDF, table continuing over two pages)
# --------------------------------------------------------------------------------------

SPEC_TITLE = "Raw Material Specification Summary 2026"

SPEC_INTRO = [
    "Document QA-RMS-2026, issue 1. Prepared by Sian Morgan, Group Food Safety & Quality "
    "Manager, with Lucy Brennan, Procurement & Supplier Quality Manager, on 12 January 2026. "
    "Valid from 12 January 2026 until replaced.",
    "This summary lists every raw material currently approved for use at Hollin Bridge (HB), "
    "Tenterfield (TF) and Coldhurst (CH), with its approved supplier, the allergens it contains, "
    "how it must be stored on site and its shelf life. Only materials on this list may be "
    "received. The full specification for each material is held in Corvel ERP under the same "
    "code.",
    "Allergens are those of the 14 regulated allergen groups that the material contains as an "
    "ingredient. 'None' means none of the 14 are present. Shelf life is for the unopened material "
    "from the date of manufacture; opened materials follow the site's open-life labels.",
    "Nut materials (marked 'TF3 only') are delivered directly to the TF3 store room at "
    "Tenterfield and must never be taken into any other production area.",
]

SPEC_HEADER = ("Code", "Ingredient", "Supplier", "Allergens", "Storage", "Shelf life", "Sites")

SPEC_ROWS = [
    (
        "RM-1001",
        "Strong white bread flour",
        "Harrow & Dunn Flour Mills",
        "Gluten (wheat)",
        "Ambient, below 25 °C",
        "180 days",
        "HB",
    ),
    (
        "RM-1002",
        "Wholemeal bread flour",
        "Harrow & Dunn Flour Mills",
        "Gluten (wheat)",
        "Ambient, below 25 °C",
        "120 days",
        "HB",
    ),
    (
        "RM-1003",
        "Plain cake flour",
        "Harrow & Dunn Flour Mills",
        "Gluten (wheat)",
        "Ambient, below 25 °C",
        "180 days",
        "TF",
    ),
    (
        "RM-1004",
        "Pizza flour type 00",
        "Bellavia Foods",
        "Gluten (wheat)",
        "Ambient, below 25 °C",
        "240 days",
        "CH",
    ),
    (
        "RM-1010",
        "Bakers' yeast, compressed",
        "Lindell Yeast",
        "None",
        "Chilled 0-5 °C",
        "28 days",
        "HB, CH",
    ),
    ("RM-1011", "Salt, fine", "Saltcoast Minerals", "None", "Ambient", "730 days", "All"),
    ("RM-1012", "Caster sugar", "Brightcane Sugar", "None", "Ambient", "730 days", "TF"),
    ("RM-1013", "Rapeseed oil", "Ouseland Oils", "None", "Ambient", "365 days", "HB, CH"),
    (
        "RM-1014",
        "Bread improver BX-2",
        "Lindell Yeast",
        "Gluten (wheat), Soya",
        "Ambient",
        "270 days",
        "HB",
    ),
    (
        "RM-1020",
        "Unsalted butter, 25 kg block",
        "Vale Dairy Co-operative",
        "Milk",
        "Chilled 0-5 °C",
        "90 days",
        "TF",
    ),
    (
        "RM-1021",
        "Skimmed milk powder",
        "Vale Dairy Co-operative",
        "Milk",
        "Ambient",
        "365 days",
        "HB, TF",
    ),
    (
        "RM-1022",
        "Double cream",
        "Vale Dairy Co-operative",
        "Milk",
        "Chilled 0-5 °C",
        "14 days",
        "TF",
    ),
    (
        "RM-1023",
        "Mozzarella, diced IQF",
        "Bellavia Foods",
        "Milk",
        "Frozen -18 °C or colder",
        "270 days",
        "CH",
    ),
    (
        "RM-1024",
        "Mature cheddar, grated",
        "Vale Dairy Co-operative",
        "Milk",
        "Chilled 0-5 °C",
        "60 days",
        "CH",
    ),
    (
        "RM-1030",
        "Liquid whole egg, pasteurised",
        "Sunfield Eggs",
        "Egg",
        "Chilled 0-4 °C",
        "21 days",
        "TF, CH",
    ),
    ("RM-1031", "Egg wash glaze", "Sunfield Eggs", "Egg", "Chilled 0-4 °C", "28 days", "HB"),
    (
        "RM-1040",
        "Sesame seeds, hulled",
        "Kavala Seeds",
        "Sesame",
        "Ambient, below 20 °C",
        "365 days",
        "HB",
    ),
    (
        "RM-1041",
        "Ground almonds",
        "Almondale Nut Processors",
        "Nuts (almond)",
        "Ambient, below 20 °C",
        "180 days",
        "TF3 only",
    ),
    (
        "RM-1042",
        "Flaked almonds",
        "Almondale Nut Processors",
        "Nuts (almond)",
        "Ambient, below 20 °C",
        "180 days",
        "TF3 only",
    ),
    (
        "RM-1043",
        "Hazelnut paste",
        "Almondale Nut Processors",
        "Nuts (hazelnut)",
        "Ambient, below 20 °C",
        "270 days",
        "TF3 only",
    ),
    (
        "RM-1044",
        "Frangipane mix",
        "Almondale Nut Processors",
        "Nuts (almond), Egg, Milk, Gluten (wheat)",
        "Ambient, below 20 °C",
        "120 days",
        "TF3 only",
    ),
    (
        "RM-1050",
        "Cherry jam, bake-stable",
        "Orchard Vale Preserves",
        "None",
        "Ambient",
        "365 days",
        "TF",
    ),
    (
        "RM-1051",
        "Lemon curd",
        "Orchard Vale Preserves",
        "Egg, Milk",
        "Chilled 0-5 °C",
        "60 days",
        "TF",
    ),
    ("RM-1052", "Cocoa powder", "Ghanacrest Cocoa", "None", "Ambient", "540 days", "TF"),
    (
        "RM-1053",
        "Milk chocolate chips",
        "Ghanacrest Cocoa",
        "Milk, Soya",
        "Ambient, below 20 °C",
        "365 days",
        "TF",
    ),
    ("RM-1060", "Beef mince, 15% fat", "Moorcroft Meats", "None", "Chilled 0-4 °C", "6 days", "CH"),
    (
        "RM-1061",
        "Pepperoni slices",
        "Moorcroft Meats",
        "Mustard",
        "Chilled 0-4 °C",
        "45 days",
        "CH",
    ),
    ("RM-1062", "Tomato passata", "Bellavia Foods", "None", "Ambient", "540 days", "CH"),
    (
        "RM-1063",
        "Fresh lasagne sheets",
        "Bellavia Foods",
        "Gluten (wheat), Egg",
        "Chilled 0-4 °C",
        "30 days",
        "CH",
    ),
    (
        "RM-1064",
        "White sauce mix",
        "Vale Dairy Co-operative",
        "Milk, Gluten (wheat)",
        "Ambient",
        "270 days",
        "CH",
    ),
    (
        "RM-1065",
        "Diced celery, IQF",
        "Fenland Frozen Veg",
        "Celery",
        "Frozen -18 °C or colder",
        "540 days",
        "CH",
    ),
    (
        "RM-1066",
        "Diced onion, IQF",
        "Fenland Frozen Veg",
        "None",
        "Frozen -18 °C or colder",
        "540 days",
        "CH",
    ),
    ("RM-1067", "Worcestershire sauce", "Carrick Condiments", "Fish", "Ambient", "365 days", "CH"),
    (
        "RM-1068",
        "Black olives, sliced",
        "Bellavia Foods",
        "None",
        "Chilled 0-5 °C",
        "60 days",
        "CH",
    ),
    ("RM-1069", "Beef stock paste", "Carrick Condiments", "Celery", "Ambient", "365 days", "CH"),
]

SPEC_FOOTNOTE = (
    "Questions about a specification: Sian Morgan. Requests for a new material or a new "
    "supplier go to Lucy Brennan and are not allowed on site until this list is reissued. "
    "Next full reissue: January 2027."
)


SPEC_SUMMARY = PdfTable(
    "raw-material-specifications-2026.pdf",
    title=SPEC_TITLE,
    subject="Approved raw materials: supplier, allergens, storage and shelf life",
    author="Sian Morgan, Group Food Safety & Quality Manager",
    footer="QA-RMS-2026",
    intro=SPEC_INTRO,
    header=SPEC_HEADER,
    rows=SPEC_ROWS,
    footnote=SPEC_FOOTNOTE,
    columns=(16, 37, 35, 31, 36, 15, 16),
    align=("LEFT", "LEFT", "LEFT", "LEFT", "LEFT", "RIGHT", "LEFT"),
    fill=(238, 242, 232),
)


# --------------------------------------------------------------------------------------
# 2. Shift pay and overtime policy (PDF, prose over 2+ pages)
# --------------------------------------------------------------------------------------

PAY_TITLE = "Shift Pay and Overtime Policy (HR-POL-04, 2026)"

PAY_META = (
    "Owner: Fiona Gallagher, HR Manager. Approved by Helen Ashworth, Managing Director, on "
    "10 December 2025. Effective from 5 January 2026; replaces the 2023 version. All amounts "
    "are in pounds sterling and are paid through the weekly payroll."
)

PAY_SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1. Who this policy covers",
        [
            "This policy applies to hourly-paid employees in production, hygiene, warehouse, "
            "dispatch and engineering at Hollin Bridge Bakery, Tenterfield Bakery and Coldhurst "
            "Frozen Foods. Salaried managers and office staff are covered by their contracts. "
            "Agency workers are paid by their agency, which applies the same premiums after 12 "
            "weeks on the same assignment.",
        ],
    ),
    (
        "2. Shift patterns",
        [
            "Hollin Bridge runs three 8-hour shifts, five or six days a week: early 06:00-14:00, "
            "late 14:00-22:00 and night 22:00-06:00.",
            "Tenterfield runs two 8-hour shifts, Monday to Friday: early 06:00-14:00 and late "
            "14:00-22:00. TF3 also runs these two shifts Monday to Thursday.",
            "Coldhurst runs a continental pattern of 12-hour shifts, four on and four off: days "
            "06:00-18:00 and nights 18:00-06:00, so the plant runs every day of the year except "
            "25 and 26 December.",
        ],
    ),
    (
        "3. Shift premiums",
        [
            "At Hollin Bridge and Tenterfield the following premiums are paid on top of the basic "
            "hourly rate for every hour worked in the shift:",
            "- Late shift (14:00-22:00): £1.10 per hour.",
            "- Night shift (22:00-06:00): £2.60 per hour.",
            "At Coldhurst, employees on the continental pattern receive a shift allowance of 15% "
            "of basic pay instead of the hourly late and night premiums, because every employee "
            "works both days and nights. The allowance is paid during paid holiday as well.",
        ],
    ),
    (
        "4. Overtime",
        [
            "Overtime is any time worked beyond your contracted hours in a week. It must be agreed "
            "in advance by your shift manager; time that was not agreed in advance is not paid "
            "as overtime unless the shift manager confirms it in writing the same week.",
            "- Monday to Saturday: time and a half (1.5 x basic rate).",
            "- Sundays and bank holidays: double time (2 x basic rate).",
            "Overtime is paid in blocks of 15 minutes. Shift premiums are paid on overtime hours "
            "worked in the late or night shift. Nobody may work more than 12 hours in a shift or "
            "more than 60 hours in a week, and everyone must have at least 11 hours of rest "
            "between shifts.",
        ],
    ),
    (
        "5. Call-in payments",
        [
            "If you are called in to work outside your rostered shift and you are not on the "
            "on-call rota, you are paid for the hours worked at the overtime rate, with a minimum "
            "payment of 4 hours at the overtime rate. Travel by your own car for a call-in is paid "
            "at £0.45 per mile for the round trip.",
        ],
    ),
    (
        "6. On-call allowance for engineers",
        [
            "Maintenance engineers who are on the engineering on-call list receive an on-call "
            "allowance of £25 per weekday night and £40 per weekend day or bank holiday. These "
            "are the 2023 rates. A new engineering on-call rota with revised allowances is being "
            "reviewed; until it is approved and this policy is updated, the rates above apply. "
            "Call-outs while on call are paid as call-ins under section 5.",
            "The OT on-call rota for line PLCs and Fabrica is run by IT & OT and paid under the "
            "IT & OT team's own arrangements.",
        ],
    ),
    (
        "7. Meal allowance",
        [
            "If you work more than 3 hours of overtime directly after your shift, you receive a "
            "meal voucher worth £6.50 for the site canteen or vending machines. At Coldhurst, "
            "where the canteen is closed at night, the voucher can be used at the vending "
            "machines.",
        ],
    ),
    (
        "8. Holidays and bank holidays",
        [
            "Full-time employees receive 25 days' paid annual leave plus the 8 bank holidays. At "
            "the bakeries, 3 days of annual leave are reserved for the Christmas shutdown, when "
            "Hollin Bridge and Tenterfield close from 25 December to 1 January. Coldhurst does "
            "not shut down; holiday at Coldhurst is booked through the shift rota.",
            "If you work on a bank holiday you are paid double time for the hours worked and "
            "receive a day off in lieu, to be taken within 3 months.",
        ],
    ),
    (
        "9. Timekeeping and pay",
        [
            "Clock in and out at the TimeBank terminal at your site entrance. If you forget to "
            "clock, tell your shift manager, who must enter the time manually within 48 hours or "
            "it will not be paid that week.",
            "Pay is weekly, every Friday, one week in arrears. Overtime, premiums and allowances "
            "appear on the payslip for the week in which they were earned.",
        ],
    ),
    (
        "10. Questions",
        [
            "Questions about this policy go to Fiona Gallagher, HR Manager, or to "
            "payroll@northmill.co.uk. The premiums and allowances in this policy are reviewed "
            "each year in November with the employee forum, and any change takes effect from "
            "the first pay week of January.",
        ],
    ),
]


PAY_POLICY = PdfSections(
    "shift-pay-and-overtime-policy.pdf",
    title=PAY_TITLE,
    subject="Shift patterns, shift premiums, overtime, call-in, on-call and meal allowances",
    author="Fiona Gallagher, HR Manager",
    footer="HR-POL-04 Shift Pay and Overtime Policy",
    meta=PAY_META,
    sections=PAY_SECTIONS,
)


# --------------------------------------------------------------------------------------
# 3. Supplier scorecard (Word, suppliers x criteria)
# --------------------------------------------------------------------------------------

SCORECARD_TITLE = "Supplier Scorecard 2025"

SCORECARD_INTRO = [
    "Prepared by Lucy Brennan, Procurement & Supplier Quality Manager, and issued on 27 January "
    "2026. Scores agreed with the three site technical managers and with Ben Hartley for "
    "haulage.",
    "Each key supplier is scored once a year on five criteria, each from 1 (poor) to 10 "
    "(excellent), so the total is out of 50. Scores are based on deliveries, complaints, "
    "certificates and contact with Northmill Foods during calendar year 2025 only.",
]

SCORECARD_HEADER = (
    "Supplier",
    "Supplies",
    "Food safety & certification",
    "Quality (complaints, rejections)",
    "Delivery on time in full",
    "Responsiveness",
    "Price",
    "Total (of 50)",
)

SCORECARD_ROWS = [
    ("Harrow & Dunn Flour Mills", "Bread, cake and wholemeal flour", 9, 8, 9, 7, 7),
    ("Vale Dairy Co-operative", "Butter, cream, milk powder, cheese", 8, 8, 7, 8, 6),
    ("Almondale Nut Processors", "Almonds, hazelnut paste, frangipane mix", 9, 7, 8, 6, 6),
    ("Kestrel Packaging", "Printed films, trays and labels", 7, 5, 6, 5, 8),
    ("Sunfield Eggs", "Liquid egg, egg glaze", 8, 9, 9, 8, 7),
    ("Moorcroft Meats", "Beef mince, pepperoni", 9, 8, 7, 7, 6),
    ("Bellavia Foods", "Pizza flour, mozzarella, passata, pasta, olives", 8, 7, 5, 6, 8),
    ("Pennine Cold Logistics", "Frozen haulage", 7, 8, 6, 7, 7),
]

SCORECARD_NOTES = [
    ("Thresholds", None),
    ("A total of 40 or more gives preferred-supplier status for the next year.", "List Bullet"),
    (
        "A total below 32 puts the supplier on an improvement plan with quarterly review meetings.",
        "List Bullet",
    ),
    (
        "A food safety & certification score of 5 or lower triggers a supplier audit, whatever "
        "the total.",
        "List Bullet",
    ),
    ("Outcome for 2025", None),
    (
        "Preferred suppliers for 2026: Sunfield Eggs (41 out of 50) and Harrow & Dunn Flour Mills "
        "(40 out of 50).",
        "List Bullet",
    ),
    (
        "Improvement plan: Kestrel Packaging (31 out of 50). Main issues: look-alike film "
        "designs, which contributed to the September 2025 muffin recall, and quality "
        "complaints about print registration. Kestrel has agreed to add a coloured product "
        "band and a product barcode to every film. First review meeting on 14 April 2026, "
        "led by Lucy Brennan with Jo Whitfield.",
        "List Bullet",
    ),
    (
        "Bellavia Foods had the lowest delivery score (5): 9 of 48 deliveries from Italy arrived "
        "late, mostly because of ferry delays. Bellavia will hold two weeks of safety stock in "
        "its Leeds warehouse from March 2026.",
        "List Bullet",
    ),
    (
        "Almondale Nut Processors scored 36 out of 50. Its nut allergen controls were audited on "
        "site by Jo Whitfield in June 2025 with no non-conformities; responsiveness to "
        "certificate requests was slow.",
        "List Bullet",
    ),
    (
        "No supplier scored 5 or lower on food safety & certification in 2025, so no supplier "
        "audits are triggered by the scorecard.",
        "List Bullet",
    ),
]


SUPPLIER_SCORECARD = DocxTable(
    "supplier-scorecard-2025.docx",
    title=SCORECARD_TITLE,
    subject="Annual supplier scores for food safety, quality, delivery, responsiveness and price",
    author="Lucy Brennan, Procurement & Supplier Quality Manager",
    intro=SCORECARD_INTRO,
    section="Scores",
    header=SCORECARD_HEADER,
    rows=with_totals(SCORECARD_ROWS),
    notes=SCORECARD_NOTES,
)


# --------------------------------------------------------------------------------------
# 4. Hollin Bridge cleaning schedule (Word, table)
# --------------------------------------------------------------------------------------

CLEANING_TITLE = "Hollin Bridge Bakery Cleaning Schedule (HB-CS-01, revision 6)"

CLEANING_INTRO = [
    "Issued 12 January 2026 by Aled Hughes, Technical Manager, Hollin Bridge. Replaces revision 5. "
    "This schedule lists the routine cleans for lines HB1, HB2 and HB3 and the shared areas. "
    "Allergen changeover cleans are not listed here: they follow QP-09 every time.",
    "Chemicals: Kleenline AL-40 is the alkaline detergent, Kleenline SAN-10 the no-rinse "
    "sanitiser, OC-7 the oven cleaner and DF-3 the drain foam. Always use the dosing stations; "
    "never mix chemicals by hand. The ATP pass limit is 150 RLU or below, as in QP-09.",
]

CLEANING_HEADER = (
    "Area / equipment",
    "Task",
    "Frequency",
    "Chemical and dilution",
    "Done by",
    "Verification",
)

CLEANING_ROWS = [
    (
        "HB1 mixer bowls and spiral arms",
        "Scrape out dough, wash, rinse and sanitise",
        "End of each production day",
        "AL-40 at 2%, then SAN-10 at 1%",
        "Hygiene team",
        "ATP swab weekly",
    ),
    (
        "HB1 divider and moulder",
        "Brush out flour and dough, wipe down",
        "End of every shift",
        "Dry clean only, no water",
        "Line operators",
        "Visual check by line lead",
    ),
    (
        "HB1 prover",
        "Wipe trays and shelves, clean floor and walls",
        "Weekly, Sunday",
        "AL-40 at 2%",
        "Hygiene team",
        "Visual check by QA",
    ),
    (
        "HB1 tunnel oven belt and crumb trays",
        "Remove crumb and burnt debris",
        "Daily",
        "Dry clean only",
        "Line operators",
        "Visual check by line lead",
    ),
    (
        "HB1 tunnel oven chamber",
        "Deep clean inside the chamber, inspect belt",
        "Every 4 weeks, at the planned shutdown",
        "OC-7 oven cleaner",
        "Brightclean Services (contractor) with engineering",
        "Engineering sign-off",
    ),
    (
        "HB2 seed applicator",
        "Full strip-down and clean",
        "End of every production day",
        "AL-40 at 2%, then SAN-10 at 1%",
        "Line operators and hygiene team",
        "Sesame swab and ATP swab",
    ),
    (
        "HB2 bun divider",
        "Brush out, remove dough build-up, wipe down",
        "End of every shift",
        "Dry clean only",
        "Line operators",
        "Visual check by line lead",
    ),
    (
        "HB3 wrap press plates",
        "Scrape and wipe plates",
        "Every 6 hours of running",
        "Food-grade release oil only",
        "Line operators",
        "Visual check by line lead",
    ),
    (
        "Cooling spiral (shared HB1/HB2)",
        "Foam clean belt and frame",
        "Weekly, Saturday",
        "AL-40 at 2% as foam",
        "Hygiene team",
        "ATP swab monthly",
    ),
    (
        "Flow-wrappers and baggers",
        "Remove crumb, wipe sealing jaws",
        "End of every shift",
        "Alcohol wipes",
        "Line operators",
        "Visual check by line lead",
    ),
    (
        "Metal detectors",
        "Wipe aperture and belt",
        "End of every shift",
        "SAN-10 at 1%",
        "Line operators",
        "QA at daily check",
    ),
    (
        "Flour silos and sifters",
        "Inspect and clean sifter screens",
        "Weekly",
        "Dry clean only",
        "Engineering",
        "Engineering log; damaged screens reported to QA",
    ),
    (
        "Floor drains",
        "Clean and disinfect",
        "Weekly",
        "DF-3 drain foam at 5%",
        "Hygiene team",
        "Visual check by QA",
    ),
    (
        "Overhead structures and lights",
        "High-level dust clean",
        "Every 3 months",
        "Dry clean, vacuum",
        "Brightclean Services (contractor)",
        "QA audit",
    ),
    (
        "Changing rooms and hand-wash stations",
        "Clean and restock soap and towels",
        "Every shift",
        "General cleaner",
        "Hygiene team",
        "Shift manager check",
    ),
]

CLEANING_NOTES = [
    ("Notes", None),
    (
        "A failed ATP swab (above 150 RLU) means the item is cleaned again and re-swabbed before "
        "production starts. Record both results.",
        "List Bullet",
    ),
    (
        "The tunnel oven deep clean is booked by Owen Fletcher's engineering team with "
        "Brightclean Services; production planning keeps HB1 free for the 10-hour shutdown.",
        "List Bullet",
    ),
    (
        "Cleaning records are signed on the line's Fabrica cleaning checklist since 2 February "
        "2026.",
        "List Bullet",
    ),
]


CLEANING_SCHEDULE = DocxTable(
    "hollin-bridge-cleaning-schedule.docx",
    title=CLEANING_TITLE,
    subject="Routine cleaning tasks, frequencies, chemicals and verification for Hollin Bridge lines",
    author="Aled Hughes, Technical Manager, Hollin Bridge",
    intro=CLEANING_INTRO,
    section="Schedule",
    header=CLEANING_HEADER,
    rows=CLEANING_ROWS,
    notes=CLEANING_NOTES,
)


# --------------------------------------------------------------------------------------
# 5. Glass and brittle plastic breakage procedure (Word, headings and numbered list)
# --------------------------------------------------------------------------------------

GLASS_TITLE = "QP-14 Glass and Brittle Plastic Breakage Procedure"

GLASS_CONTENT: list[tuple[str, str]] = [
    ("h0", GLASS_TITLE),
    (
        "p",
        "Procedure QP-14, version 3. Effective 2 June 2025. Owner: Sian Morgan, Group Food Safety "
        "& Quality Manager. Approved by Dr Ruth Kellerman, Technical Director.",
    ),
    ("h1", "Purpose"),
    (
        "p",
        "Broken glass or hard plastic in food can cause serious injury. This procedure makes sure "
        "that when glass, hard plastic, Perspex or ceramic breaks in a production or storage "
        "area, no fragment can reach a product, and that every breakage is recorded.",
    ),
    ("h1", "Scope"),
    (
        "p",
        "All production, packing, storage and engineering areas at Hollin Bridge, Tenterfield and "
        "Coldhurst. It covers every item on the site glass register: light covers, HMI and "
        "terminal screens, inspection windows, gauges, clocks, Perspex guards, scoops, "
        "thermometers and visors. Glass bottles and jars are not allowed in production areas at "
        "all.",
    ),
    ("h1", "If something breaks"),
    (
        "num",
        "Stop work on the line or in the area at once. Everyone nearby stands still so that "
        "fragments are not spread on their shoes.",
    ),
    ("num", "Call the line lead and QA on radio channel 3. Do not leave the area to fetch help."),
    (
        "num",
        "The line lead cordons off the area with the barrier tape from the breakage kit: 5 metres "
        "in every direction from the breakage, or the whole line if the breakage is above an "
        "open conveyor.",
    ),
    (
        "num",
        "Quarantine all open product, ingredients and packaging within 5 metres with QA HOLD "
        "labels. Nothing is moved out of the cordon until QA says so.",
    ),
    (
        "num",
        "Clean up with the blue glass breakage kit kept at each line: dustpan, brush, sticky "
        "roller and disposable vacuum bag. The kit is used for nothing else and is replaced after "
        "every breakage.",
    ),
    (
        "num",
        "Put all fragments in the breakage container and, where possible, rebuild the item to "
        "check that no piece is missing.",
    ),
    (
        "num",
        "Check the shoes and clothing of everyone inside the cordon with the sticky roller "
        "before they leave it.",
    ),
    (
        "num",
        "QA inspects the area, the equipment and the conveyors. Open product and ingredients "
        "inside the cordon are destroyed. Sealed packed product may be released by QA after "
        "inspection.",
    ),
    (
        "num",
        "Record the breakage in Fabrica (paper form QF-14 at Tenterfield until Fabrica goes live "
        "there), with the glass register number of the item.",
    ),
    ("num", "The line restarts only after QA signs off the area as clear."),
    ("h1", "Afterwards"),
    (
        "num2",
        "Engineering replaces the item the same day, or fits a temporary cover approved by QA.",
    ),
    (
        "num2",
        "The site technical manager updates the glass register and reviews whether the item can "
        "be replaced with a non-breakable one.",
    ),
    ("h1", "Glass register audits"),
    (
        "p",
        "The technical team checks every item on the glass register once a month. Items directly "
        "above open product (for example light covers over the HB1 cooling spiral and the CH1 "
        "topping area) are checked every week. Damaged items are reported and replaced before "
        "the next production run.",
    ),
    ("h1", "Responsibilities"),
    ("bullet", "Everyone: stop, stand still and report any breakage straight away."),
    ("bullet", "Line lead: cordon, quarantine and call QA."),
    ("bullet", "QA: inspection, product decisions, sign-off and records."),
    ("bullet", "Site technical manager: glass register and audits."),
]


GLASS_PROCEDURE = DocxContent(
    "glass-and-brittle-plastic-procedure.docx",
    subject="What to do when glass or brittle plastic breaks, and glass register audits",
    author="Sian Morgan, Group Food Safety & Quality Manager",
    content=GLASS_CONTENT,
)


DOCUMENTS = (
    SPEC_SUMMARY,
    PAY_POLICY,
    SUPPLIER_SCORECARD,
    CLEANING_SCHEDULE,
    GLASS_PROCEDURE,
)

if __name__ == "__main__":
    build(Path(__file__).resolve().parent / "docs", DOCUMENTS, FIXED_DATE, COMPANY)
