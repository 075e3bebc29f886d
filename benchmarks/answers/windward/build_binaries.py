"""Regenerate the PDF and Word documents of the Windward Energy corpus.

    .venv/bin/python benchmarks/answers/windward/build_binaries.py

The text of the spare-parts price list and the travel and expenses policy (PDF), the vendor
scorecard and the ice-risk procedure (Word) lives here; benchmarks/answers/corpus_tools/binaries.py
writes them to docs/, byte-identically.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/answers: corpus_tools

from corpus_tools.binaries import DocxContent, DocxTable, PdfSections, PdfTable, build, with_totals

FIXED_DATE = datetime(2026, 1, 5, 9, 0, 0, tzinfo=UTC)
COMPANY = "Windward Energy"  # names the creator and heads each PDF footer
AUTHOR_PROCUREMENT = "Elise Moen, Procurement & Vendor Manager"

# --------------------------------------------------------------------------------------
# 1. Spare-parts price list (PDF, table continuing over two pages)
# --------------------------------------------------------------------------------------

PRICE_LIST_TITLE = "Spare Parts Price List 2026 - Nordvik NV-3.6 and NV-4.2"

PRICE_LIST_INTRO = [
    "Document PROC-PL-2026. Prepared by Elise Moen, Procurement & Vendor Manager, "
    "on 5 January 2026. Valid for orders placed from 1 January 2026 to 31 December 2026.",
    "This list gives the agreed 2026 unit prices for the spare parts we keep in the site "
    "stores at Brekken Ridge, Sollia Heights and Carn Dubh. Brekken Ridge and Sollia Heights "
    "run Nordvik NV-3.6 turbines; Carn Dubh runs Nordvik NV-4.2 turbines. Parts marked "
    "'Both' fit both models.",
    "Prices are in EUR per unit, excluding VAT and freight, and are fixed for 2026 under the "
    "parts annex of the Nordvik full-service agreement FSA-2019-07. Lead time is in weeks "
    "from order confirmation. Min stock is the minimum quantity each site store must hold; "
    "for NV-4.2-only parts the minimum applies to the Carn Dubh store only.",
    "Main components - gearboxes, generators, main bearings, rotor blades and transformers - "
    "are not on this list. They are quoted individually by Procurement when needed.",
    "Order through a purchase request in FieldDesk. Orders above EUR 10,000 in total need "
    "approval from Ingrid Solberg, Head of Field Operations. When a store falls below its "
    "min stock, FieldDesk raises a reorder request automatically.",
]

PRICE_LIST_HEADER = (
    "Part no",
    "Description",
    "Model",
    "Unit price (EUR)",
    "Lead time (weeks)",
    "Min stock",
)

PRICE_LIST_ROWS = [
    ("NV-10021", "Pitch bearing seal kit", "NV-3.6", "1,240", "6", "4"),
    ("NV-10022", "Pitch bearing seal kit", "NV-4.2", "1,460", "8", "2"),
    ("NV-11040", "Pitch motor 2.2 kW", "NV-3.6", "3,850", "10", "2"),
    ("NV-11041", "Pitch motor 3.0 kW", "NV-4.2", "4,420", "12", "1"),
    ("NV-11210", "Pitch emergency battery pack (ultracap)", "NV-3.6", "2,980", "6", "3"),
    ("NV-11211", "Pitch emergency battery pack (ultracap)", "NV-4.2", "3,310", "7", "2"),
    ("NV-12005", "Yaw brake pad set (10 pads)", "Both", "690", "3", "6"),
    ("NV-12110", "Yaw drive motor", "NV-3.6", "5,120", "14", "1"),
    ("NV-12120", "Yaw planetary drive", "Both", "7,940", "16", "1"),
    ("NV-12200", "Yaw position encoder", "Both", "860", "4", "3"),
    ("NV-13001", "Hydraulic pump unit", "NV-3.6", "6,300", "10", "1"),
    ("NV-13020", "Hydraulic accumulator 4 L", "Both", "870", "4", "4"),
    ("NV-13050", "Hydraulic oil HVI 46, 20 L can", "Both", "165", "1", "20"),
    ("NV-14010", "Slip ring assembly", "NV-3.6", "4,760", "12", "1"),
    ("NV-14011", "Slip ring brush set (24 brushes)", "Both", "310", "2", "10"),
    ("NV-15100", "Converter IGBT module", "NV-3.6", "3,980", "8", "2"),
    ("NV-15101", "Converter IGBT module", "NV-4.2", "4,350", "8", "2"),
    ("NV-15200", "Converter cooling pump", "Both", "1,720", "6", "2"),
    ("NV-15310", "Converter air filter set", "Both", "95", "1", "30"),
    ("NV-16001", "Anemometer, ultrasonic", "Both", "1,150", "4", "3"),
    ("NV-16002", "Wind vane", "Both", "980", "4", "3"),
    ("NV-16100", "Aviation obstruction light, LED", "Both", "1,340", "5", "4"),
    ("NV-17010", "Bearing grease cartridge 400 g", "Both", "38", "1", "40"),
    ("NV-17020", "Bearing grease drum 18 kg", "Both", "412", "2", "6"),
    ("NV-17030", "Gear oil filter element", "Both", "145", "2", "12"),
    ("NV-17040", "Gear oil ISO VG 320, 208 L drum", "Both", "2,350", "3", "2"),
    ("NV-18001", "Service lift wire rope, 150 m", "Both", "1,890", "6", "2"),
    ("NV-18010", "Service lift overspeed governor", "Both", "2,640", "8", "1"),
    ("NV-18100", "Ladder fall-arrest rail slider", "Both", "420", "3", "6"),
    ("NV-19001", "Rotor brake pad set", "Both", "1,080", "4", "3"),
    ("NV-19050", "Rotor lock pin sensor", "Both", "260", "3", "6"),
    ("NV-20010", "Nacelle cooling fan 400 V", "Both", "730", "5", "3"),
    ("NV-20020", "Temperature sensor PT100", "Both", "58", "1", "25"),
    ("NV-21000", "Vibration sensor (accelerometer)", "Both", "640", "4", "6"),
    ("NV-21010", "Controller I/O module", "Both", "1,260", "6", "3"),
    ("NV-21100", "Controller UPS battery set", "Both", "540", "3", "6"),
    ("NV-22001", "Fire detection smoke sensor", "Both", "185", "2", "10"),
]

PRICE_LIST_FOOTNOTE = (
    "Questions about this list: Elise Moen. Prices for parts not listed, and for main "
    "components, are quoted on request. Next revision: January 2027."
)


PRICE_LIST = PdfTable(
    "spare-parts-price-list-2026.pdf",
    title=PRICE_LIST_TITLE,
    subject="Spare parts unit prices, lead times and minimum stock for 2026",
    author=AUTHOR_PROCUREMENT,
    footer="PROC-PL-2026",
    intro=PRICE_LIST_INTRO,
    header=PRICE_LIST_HEADER,
    rows=PRICE_LIST_ROWS,
    footnote=PRICE_LIST_FOOTNOTE,
    columns=(22, 62, 18, 26, 24, 20),
    align=("LEFT", "LEFT", "LEFT", "RIGHT", "RIGHT", "RIGHT"),
    fill=(235, 240, 245),
    margins=(18, 18, 18),
    font_size=9,
    line_height=6.5,
)


# --------------------------------------------------------------------------------------
# 2. Travel and expenses policy (PDF, prose over 2+ pages)
# --------------------------------------------------------------------------------------

TRAVEL_TITLE = "Travel and Expenses Policy (FIN-POL-03, version 2026)"

TRAVEL_META = (
    "Owner: Petter Holm, Finance Controller. Approved by Marit Lunde, COO, on 15 December 2025. "
    "Effective from 1 January 2026; replaces the 2023 version. All amounts are in EUR."
)

TRAVEL_SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1. Purpose and scope",
        [
            "This policy sets out how Windward Energy employees book business travel and claim "
            "back the costs. It applies to all employees travelling on company business within "
            "Norway and to and from the United Kingdom, which is where our head office in "
            "Trondheim and our three wind farms are. Other international travel is governed by "
            "a separate procedure. Contractors follow the terms of their own contracts.",
            "The basic rule is simple: travel when it is needed for the work, choose the option "
            "that is safe and sensible on cost, and keep the receipts.",
        ],
    ),
    (
        "2. Booking travel",
        [
            "Flights, trains and hotels are booked through our travel agency, Nordreise, using "
            "the company account. Book at least 14 days ahead where possible. All flights are in "
            "economy class. Changes and cancellations should also go through Nordreise so that "
            "refunds come back to the company.",
            "Site visits to Brekken Ridge and Sollia Heights should use a pool car from the "
            "Trondheim office where one is available. Book pool cars in the fleet calendar. For "
            "visits to Carn Dubh, fly to Inverness and use the regional office car or a rental car "
            "booked through Nordreise.",
        ],
    ),
    (
        "3. Per diem (daily allowance for meals and incidentals)",
        [
            "Per diem is a fixed daily amount that covers meals and small incidental costs. You do "
            "not need receipts for costs covered by the per diem. The rates for 2026 are:",
            "- Day trip in Norway lasting 6 to 12 hours: EUR 30.",
            "- Day trip in Norway lasting more than 12 hours, without an overnight stay: EUR 45.",
            "- Overnight travel in Norway: EUR 62 per day.",
            "- Day trip in the United Kingdom: EUR 40.",
            "- Overnight travel in the United Kingdom: EUR 85 per day.",
            "If a meal is provided free of charge, for example by a supplier, at a conference or "
            "in a hotel rate, the per diem for that day is reduced: breakfast by 20%, lunch by 30% "
            "and dinner by 50%. Trips shorter than 6 hours do not qualify for a per diem.",
        ],
    ),
    (
        "4. Accommodation",
        [
            "Hotels are booked through Nordreise within these nightly limits, including breakfast: "
            "EUR 150 per night in Norway (EUR 190 in Oslo) and EUR 170 per night in the United "
            "Kingdom (EUR 230 in London). If no room is available within the limit, Nordreise "
            "notes this on the booking and the higher rate is accepted.",
            "During the spring and autumn service campaigns, field teams working away from their "
            "home site stay in the accommodation booked by their site manager; the limits above "
            "still apply.",
        ],
    ),
    (
        "5. Travel by car, taxi and public transport",
        [
            "If you use your private car for business travel with the approval of your line "
            "manager, the mileage allowance is EUR 0.45 per km, plus EUR 0.05 per km for each "
            "colleague travelling with you. Tolls and parking on business trips are reimbursed "
            "against receipts. Fuel for pool cars and rental cars is paid with the fuel card in "
            "the car.",
            "Use public transport or the airport train where it is practical. Taxis are "
            "reimbursed when travelling between 22:00 and 06:00, when carrying tools or "
            "equipment over 20 kg, or when no reasonable public transport exists.",
        ],
    ),
    (
        "6. What is not reimbursed",
        [
            "The following are never reimbursed: alcohol, traffic fines and parking fines, "
            "hotel minibar and pay-TV, personal entertainment, upgrades to business class or "
            "better rooms, and costs for family members travelling with you.",
        ],
    ),
    (
        "7. Advances",
        [
            "You can ask for a travel advance of up to EUR 500 if a trip will involve costs that "
            "cannot go on the company account. Ask Finance at least 5 working days before you "
            "travel. The advance is settled in your expense claim after the trip.",
        ],
    ),
    (
        "8. Claiming expenses",
        [
            "Submit your expense claim in ExpensePoint within 30 days of returning from the trip. "
            "Claims submitted later are only paid with written approval from the Finance "
            "Controller.",
            "A receipt is required for every expense over EUR 20; photograph it in the "
            "ExpensePoint app. Per diem claims need the dates, times and destination of the trip "
            "but no receipts.",
            "Your line manager approves the claim. Claims with a total above EUR 2,000 must also "
            "be approved by the Finance Controller. Approved claims are paid with the next "
            "monthly salary.",
        ],
    ),
    (
        "9. Responsibilities and questions",
        [
            "Employees are responsible for claiming only genuine business costs. Line managers are "
            "responsible for checking claims before approval. Finance checks a sample of claims "
            "every month. Misuse of this policy is handled as a disciplinary matter.",
            "Questions about this policy go to Petter Holm, Finance Controller. The policy is "
            "reviewed every year in November, and per diem rates are updated each January.",
        ],
    ),
]


TRAVEL_POLICY = PdfSections(
    "travel-and-expenses-policy.pdf",
    title=TRAVEL_TITLE,
    subject="Booking travel, per diem rates, hotel limits, mileage and expense claims",
    author="Petter Holm, Finance Controller",
    footer="FIN-POL-03 Travel and Expenses Policy",
    meta=TRAVEL_META,
    sections=TRAVEL_SECTIONS,
)


# --------------------------------------------------------------------------------------
# 3. Vendor scorecard (Word, table vendors x criteria)
# --------------------------------------------------------------------------------------

SCORECARD_TITLE = "Vendor Scorecard 2025"

SCORECARD_INTRO = [
    "Prepared by Elise Moen, Procurement & Vendor Manager, and issued on 20 January 2026. "
    "Scores agreed with the site managers, the HSE Manager (Sindre Bakke) and the Head of "
    "SCADA & IT Platform (Anders Vik).",
    "Each of our main vendors is scored once a year on five criteria. Each criterion is scored "
    "from 1 (poor) to 10 (excellent), so the total is out of 50. Scores are based on the "
    "vendor's work for Windward Energy during calendar year 2025 only.",
]

SCORECARD_HEADER = (
    "Vendor",
    "Category",
    "Safety performance",
    "Quality of work",
    "Response time",
    "Cost competitiveness",
    "Documentation & reporting",
    "Total (of 50)",
)

SCORECARD_ROWS = [
    ("Nordvik Turbines Service", "Turbine service (FSA-2019-07)", 8, 8, 6, 5, 7),
    ("SkyBlade Inspections", "Blade inspections", 9, 9, 8, 7, 9),
    ("Hoyfjell Crane & Lift", "Cranes, service lift inspections", 7, 8, 7, 6, 5),
    ("Polar Electrical Contractors", "HV and substation maintenance", 6, 7, 8, 8, 6),
    ("NorthLink Fibre", "MPLS network and fibre", 8, 6, 4, 7, 6),
    ("Fjellvakt Security", "Site security patrols", 10, 7, 8, 8, 7),
]

SCORECARD_NOTES = [
    ("Thresholds", None),
    ("A total of 40 or more gives preferred-supplier status for the next year.", "List Bullet"),
    (
        "A total below 32 puts the vendor on an improvement plan with quarterly review meetings.",
        "List Bullet",
    ),
    (
        "A safety performance score of 5 or lower triggers an HSE audit regardless of the total.",
        "List Bullet",
    ),
    ("Outcome for 2025", None),
    (
        "Preferred suppliers for 2026: SkyBlade Inspections (42) and Fjellvakt Security (40).",
        "List Bullet",
    ),
    (
        "Improvement plan: NorthLink Fibre (31). The main issue is response time - slow handling "
        "of circuit faults, including during the Sollia Heights outage in January 2026. First "
        "review meeting in April 2026, led by Elise Moen with Leila Nasser.",
        "List Bullet",
    ),
    (
        "Nordvik Turbines Service scored lowest of all vendors on cost competitiveness (5). "
        "Parts prices for 2026 are fixed in the FSA-2019-07 parts annex, so this will be raised "
        "at the 2026 contract review.",
        "List Bullet",
    ),
    (
        "No vendor scored 5 or lower on safety performance in 2025, so no HSE audits are triggered.",
        "List Bullet",
    ),
]


VENDOR_SCORECARD = DocxTable(
    "vendor-scorecard-2025.docx",
    title=SCORECARD_TITLE,
    subject="Annual vendor performance scores on safety, quality, response time, cost and documentation",
    author=AUTHOR_PROCUREMENT,
    intro=SCORECARD_INTRO,
    section="Scores",
    header=SCORECARD_HEADER,
    rows=with_totals(SCORECARD_ROWS),
    notes=SCORECARD_NOTES,
)


# --------------------------------------------------------------------------------------
# 4. Ice risk procedure (Word, headings and numbered list)
# --------------------------------------------------------------------------------------

ICE_TITLE = "SP-11 Ice Risk and Cold Weather Working Procedure"

ICE_CONTENT: list[tuple[str, str]] = [
    ("h0", ICE_TITLE),
    (
        "p",
        "Procedure SP-11, revision 2. Effective 1 October 2025. Owner: Sindre Bakke, HSE Manager. "
        "Approved by Ingrid Solberg, Head of Field Operations.",
    ),
    ("h1", "Purpose"),
    (
        "p",
        "Ice that builds up on rotor blades can be thrown from a rotating turbine or fall from a "
        "stopped one. This procedure protects our staff, contractors and the public at Brekken "
        "Ridge, Sollia Heights and Carn Dubh from falling and thrown ice, and sets out how "
        "turbines are stopped and restarted when ice is present.",
    ),
    ("h1", "When this procedure applies"),
    (
        "p",
        "The procedure is active from 1 October to 30 April every year, and at any other time "
        "when either of the following happens:",
    ),
    ("bullet", "a turbine's ice detector raises alarm 5100 (ICE_DETECTED) in WindSight; or"),
    (
        "bullet",
        "the ambient temperature at hub height is at or below +2 °C with relative humidity above 90%.",
    ),
    ("h1", "Exclusion zone"),
    (
        "p",
        "The exclusion radius around a turbine with ice risk is 1.5 x (hub height + rotor "
        "diameter), rounded up to the next 25 m:",
    ),
    (
        "bullet",
        "Brekken Ridge and Sollia Heights (Nordvik NV-3.6, hub height 105 m, rotor diameter 126 m): "
        "exclusion radius 350 m.",
    ),
    (
        "bullet",
        "Carn Dubh (Nordvik NV-4.2, hub height 112 m, rotor diameter 136 m): exclusion radius 375 m.",
    ),
    (
        "p",
        "Warning signs with flashing lights are installed at every access point into the wind "
        "farms: 7 at Brekken Ridge, 5 at Sollia Heights and 4 at Carn Dubh.",
    ),
    ("h1", "Procedure when ice is detected"),
    (
        "num",
        "The ROC operator confirms alarm 5100 in WindSight and checks the neighbouring turbines for ice alarms or unusual power curves.",
    ),
    (
        "num",
        "The affected turbine stops automatically on alarm 5100. The ROC confirms the stop; if the automatic stop has not happened, the ROC stops the turbine manually.",
    ),
    (
        "num",
        "The ROC notifies the site manager of that wind farm by phone within 30 minutes and records the event in the ROC shift log.",
    ),
    (
        "num",
        "The site manager switches on the warning lights at the access points and, where needed, closes the internal roads that pass inside the exclusion zone.",
    ),
    (
        "num",
        "Nobody enters the exclusion zone on foot. Driving through it is allowed only in a closed vehicle on a designated road, without stopping.",
    ),
    ("num", "Planned work on the iced turbine is postponed. An iced turbine is never climbed."),
    (
        "num",
        "Record the ice event in FieldDesk with the category 'Ice stop' so that the hours can be excluded in the availability report.",
    ),
    ("h1", "Restart after icing"),
    ("p", "A turbine stopped for ice may only be restarted when one of these conditions is met:"),
    (
        "num2",
        "A visual inspection by two people, from outside the exclusion zone using binoculars or a "
        "handheld drone, confirms that all three blades are free of ice; or",
    ),
    (
        "num2",
        "the ice detector has been clear and the ambient temperature has stayed above +3 °C for "
        "3 consecutive hours.",
    ),
    (
        "p",
        "The site manager authorises the restart by phone to the ROC, and the ROC restarts the "
        "turbine and notes the authorisation in the shift log. Blade heating is not installed on "
        "our turbines, so there is no de-icing mode to run.",
    ),
    ("h1", "Responsibilities"),
    ("bullet", "ROC operator: detect, stop, notify the site manager, log."),
    ("bullet", "Site manager: warning lights, road closures, restart authorisation."),
    ("bullet", "HSE Manager: owns this procedure, reviews every ice event with a near miss."),
    (
        "bullet",
        "Everyone: stay outside the exclusion zone and report ice on the ground near turbines to the ROC.",
    ),
]


ICE_PROCEDURE = DocxContent(
    "ice-risk-procedure.docx",
    subject="Ice detection, exclusion zones and restart rules for turbines in cold weather",
    author="Sindre Bakke, HSE Manager",
    content=ICE_CONTENT,
)


DOCUMENTS = (PRICE_LIST, TRAVEL_POLICY, VENDOR_SCORECARD, ICE_PROCEDURE)

if __name__ == "__main__":
    build(Path(__file__).resolve().parent / "docs", DOCUMENTS, FIXED_DATE, COMPANY)
