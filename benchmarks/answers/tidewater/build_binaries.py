"""Regenerate the PDF and Word documents of the Tidewater Water corpus.

    .venv/bin/python benchmarks/answers/tidewater/build_binaries.py

The text of the treatment chemicals schedule and the standby and overtime pay policy (PDF), the
contractor scorecard and the mains repair hygiene procedure (Word) lives here;
benchmarks/answers/corpus_tools/binaries.py writes them to docs/, byte-identically.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/answers: corpus_tools

from corpus_tools.binaries import DocxContent, DocxTable, PdfSections, PdfTable, build

FIXED_DATE = datetime(2026, 2, 2, 9, 0, 0, tzinfo=UTC)
COMPANY = "Tidewater Water"  # names the creator and heads each PDF footer

# --------------------------------------------------------------------------------------
# 1. Treatment chemicals supply schedule (PDF, table continuing over two pages)
# --------------------------------------------------------------------------------------

CHEM_TITLE = "Treatment Chemicals Supply Schedule 2026-27"

CHEM_INTRO = [
    "Document PRC-CHEM-2026, issue 1. Prepared by Gemma Tull, Procurement & Contracts Manager, "
    "with Rosa Pengelly, Water Quality Manager, on 2 February 2026. Prices are fixed from "
    "1 April 2026 to 31 March 2027.",
    "This schedule lists every treatment chemical under contract for our water treatment works "
    "(Kestle Moor, Ambrook, Fenwick Springs), our wastewater treatment works (Brenmouth, "
    "Saltings), the pumping stations that are dosed, and the network stores. Only chemicals on "
    "this schedule may be ordered, and only from the supplier shown. Every chemical used in "
    "contact with drinking water is approved for that use.",
    "Prices are per tonne delivered, excluding VAT, unless another unit is given. Lead times are "
    "in working days from the order. An emergency delivery within 24 hours can be requested from "
    "any supplier at a 25% surcharge; it must be approved by the works manager.",
    "Works keep at least 7 days of stock of every chemical at normal use. Order when stock falls "
    "to the lead time plus 7 days.",
]

CHEM_HEADER = ("Code", "Chemical", "Site", "Use", "Supplier", "Price", "Lead time")

CHEM_ROWS = [
    (
        "TC-101",
        "Sodium hypochlorite 14-15%",
        "Kestle Moor WTW",
        "Final disinfection",
        "Marlow Chemicals",
        "£268",
        "2 days",
    ),
    (
        "TC-102",
        "Sodium hypochlorite 14-15%",
        "Ambrook WTW",
        "Final disinfection",
        "Marlow Chemicals",
        "£268",
        "2 days",
    ),
    (
        "TC-103",
        "Sodium hypochlorite 14-15%",
        "Fenwick Springs WTW",
        "Final disinfection",
        "Marlow Chemicals",
        "£281",
        "3 days",
    ),
    (
        "TC-104",
        "Sodium hypochlorite 14-15%",
        "Brenmouth WwTW",
        "Odour control scrubbers",
        "Marlow Chemicals",
        "£274",
        "3 days",
    ),
    (
        "TC-105",
        "Sodium hypochlorite 14-15%, 25 litre drums",
        "Network stores",
        "Mains repair swab and spray",
        "Marlow Chemicals",
        "£14.80 per drum",
        "2 days",
    ),
    (
        "TC-110",
        "Ferric sulphate 40%",
        "Kestle Moor WTW",
        "Coagulation",
        "Ferrant Chemicals",
        "£212",
        "3 days",
    ),
    (
        "TC-111",
        "Ferric sulphate 40%",
        "Ambrook WTW",
        "Coagulation",
        "Ferrant Chemicals",
        "£212",
        "3 days",
    ),
    (
        "TC-112",
        "Ferric chloride 40%",
        "Brenmouth WwTW",
        "Phosphorus removal",
        "Ferrant Chemicals",
        "£236",
        "3 days",
    ),
    (
        "TC-113",
        "Ferric chloride 40%",
        "Saltings WwTW",
        "Phosphorus removal",
        "Ferrant Chemicals",
        "£241",
        "5 days",
    ),
    (
        "TC-120",
        "Sulphuric acid 96%",
        "Kestle Moor WTW",
        "Coagulation pH control",
        "Calloway Acids",
        "£190",
        "5 days",
    ),
    (
        "TC-121",
        "Sulphuric acid 96%",
        "Ambrook WTW",
        "Coagulation pH control",
        "Calloway Acids",
        "£190",
        "5 days",
    ),
    (
        "TC-125",
        "Sodium hydroxide 47%",
        "Kestle Moor WTW",
        "Final pH correction",
        "Northgate Alkalis",
        "£455",
        "3 days",
    ),
    (
        "TC-126",
        "Sodium hydroxide 47%",
        "Ambrook WTW",
        "Final pH correction",
        "Northgate Alkalis",
        "£455",
        "3 days",
    ),
    (
        "TC-127",
        "Sodium hydroxide 32%",
        "Fenwick Springs WTW",
        "Final pH correction",
        "Northgate Alkalis",
        "£398",
        "5 days",
    ),
    (
        "TC-128",
        "Sodium hydroxide 47%",
        "Saltings WwTW",
        "Alkalinity for nitrification",
        "Northgate Alkalis",
        "£462",
        "5 days",
    ),
    (
        "TC-130",
        "Orthophosphoric acid 75%",
        "Kestle Moor WTW",
        "Plumbosolvency control",
        "Pentland Phosphates",
        "£1,180",
        "10 days",
    ),
    (
        "TC-131",
        "Orthophosphoric acid 75%",
        "Ambrook WTW",
        "Plumbosolvency control",
        "Pentland Phosphates",
        "£1,180",
        "10 days",
    ),
    (
        "TC-132",
        "Orthophosphoric acid 75%",
        "Fenwick Springs WTW",
        "Plumbosolvency control",
        "Pentland Phosphates",
        "£1,215",
        "10 days",
    ),
    (
        "TC-140",
        "Polyelectrolyte, cationic powder",
        "Kestle Moor WTW",
        "Sludge thickening and centrifuge",
        "Kemora Polymers",
        "£2,340",
        "14 days",
    ),
    (
        "TC-141",
        "Polyelectrolyte, cationic emulsion",
        "Brenmouth WwTW",
        "Sludge dewatering",
        "Kemora Polymers",
        "£2,610",
        "14 days",
    ),
    (
        "TC-142",
        "Polyelectrolyte, anionic powder",
        "Ambrook WTW",
        "Filter aid",
        "Kemora Polymers",
        "£2,880",
        "14 days",
    ),
    (
        "TC-143",
        "Antifoam, silicone-free",
        "Brenmouth WwTW",
        "Foam control in aeration lanes",
        "Kemora Polymers",
        "£2,150",
        "14 days",
    ),
    (
        "TC-150",
        "Granular activated carbon, virgin",
        "Kestle Moor WTW",
        "GAC adsorber top-up",
        "Dunmore Carbon",
        "£1,950",
        "42 days",
    ),
    (
        "TC-151",
        "GAC reactivation service",
        "Kestle Moor WTW",
        "GAC regeneration",
        "Dunmore Carbon",
        "£720",
        "28 days",
    ),
    (
        "TC-152",
        "Powdered activated carbon",
        "Ambrook WTW",
        "Taste, odour and pesticide events",
        "Dunmore Carbon",
        "£1,640",
        "7 days",
    ),
    (
        "TC-160",
        "Sodium bisulphite 38%",
        "Kestle Moor WTW",
        "Dechlorinating discharges to Kestle Brook",
        "Marlow Chemicals",
        "£520",
        "5 days",
    ),
    (
        "TC-161",
        "Sodium bisulphite 38%",
        "Ambrook WTW",
        "Dechlorinating discharges to the River Ambrook",
        "Marlow Chemicals",
        "£520",
        "5 days",
    ),
    (
        "TC-162",
        "Sodium thiosulphate tablets, 1 kg tub",
        "Network stores",
        "Dechlorinating flushing water",
        "Marlow Chemicals",
        "£38 per tub",
        "2 days",
    ),
    (
        "TC-170",
        "Hydrated lime",
        "Ambrook WTW",
        "Remineralisation and pH",
        "Cawdor Lime",
        "£215",
        "5 days",
    ),
    (
        "TC-171",
        "Carbon dioxide, liquid",
        "Ambrook WTW",
        "Remineralisation with lime",
        "Gasline Industrial",
        "£145",
        "3 days",
    ),
    (
        "TC-180",
        "Magnesium hydroxide slurry 60%",
        "Quay Street SPS",
        "Septicity and odour control",
        "Halcyon Minerals",
        "£410",
        "7 days",
    ),
    (
        "TC-181",
        "Calcium nitrate solution",
        "Harbour Wall SPS",
        "Septicity control in the rising main",
        "Halcyon Minerals",
        "£385",
        "7 days",
    ),
    (
        "TC-182",
        "Calcium nitrate solution",
        "Marsh Lane SPS",
        "Septicity control in the rising main",
        "Halcyon Minerals",
        "£385",
        "7 days",
    ),
    (
        "TC-183",
        "Odour neutraliser, plant-based",
        "Brenmouth WwTW",
        "Inlet works odour misting",
        "Fresca Odour Solutions",
        "£3,200",
        "10 days",
    ),
    (
        "TC-190",
        "Peracetic acid 15%",
        "Brenmouth WwTW",
        "Final effluent disinfection, bathing season",
        "Marlow Chemicals",
        "£1,480",
        "5 days",
    ),
    (
        "TC-191",
        "Citric acid 50%",
        "Kestle Moor WTW",
        "UV sleeve cleaning",
        "Marlow Chemicals",
        "£980",
        "10 days",
    ),
]

CHEM_FOOTNOTE = (
    "Questions about a chemical's use or dose: Rosa Pengelly (drinking water) or the works "
    "manager (wastewater). Orders, prices and suppliers: Gemma Tull. A new chemical or supplier "
    "may not be used until this schedule is reissued. Next full reissue: February 2027."
)


CHEMICAL_SCHEDULE = PdfTable(
    "treatment-chemicals-schedule-2026.pdf",
    title=CHEM_TITLE,
    subject="Contracted treatment chemicals: site, use, supplier, price and lead time",
    author="Gemma Tull, Procurement & Contracts Manager",
    footer="PRC-CHEM-2026",
    intro=CHEM_INTRO,
    header=CHEM_HEADER,
    rows=CHEM_ROWS,
    footnote=CHEM_FOOTNOTE,
    columns=(14, 40, 29, 38, 30, 20, 15),
    align=("LEFT", "LEFT", "LEFT", "LEFT", "LEFT", "RIGHT", "RIGHT"),
    fill=(230, 240, 246),
)


# --------------------------------------------------------------------------------------
# 2. Standby, call-out and overtime pay policy (PDF, prose over 2+ pages)
# --------------------------------------------------------------------------------------

PAY_TITLE = "Standby, Call-out and Overtime Pay Policy (HR-07, 2026)"

PAY_META = (
    "Owner: Joanne Whitcombe, HR Manager. Approved by Margaret Oyelaran, Chief Executive, on "
    "2 December 2025. Effective from 1 January 2026; replaces the 2023 version. The standby "
    "allowances are unchanged from 2023. All amounts are in pounds sterling and are paid through "
    "the monthly payroll."
)

PAY_SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1. Who this policy covers",
        [
            "This policy applies to operational employees at Tidewater Water: water treatment "
            "works operators, network technicians and crews, wastewater operatives, Regional "
            "Control Centre (RCC) operators, OT engineers, IT on-call engineers, laboratory "
            "scientists on the water quality rota and contact centre advisors. Managers above "
            "grade 7 are covered by their contracts. Contractors are paid by their employers.",
        ],
    ),
    (
        "2. Working patterns",
        [
            "Treatment works operators and network crews work days, 07:00-15:30 Monday to "
            "Friday, and cover nights and weekends through the standby rota.",
            "RCC operators work 12-hour shifts, 07:00-19:00 and 19:00-07:00, on a four-on "
            "four-off pattern, so the RCC is staffed every hour of the year. RCC operators are "
            "not on the standby rota.",
            "Contact centre advisors work between 08:00 and 20:00. The night desk at Harbour "
            "House is staffed from 20:00 to 08:00 by advisors on a separate night rota.",
        ],
    ),
    (
        "3. Shift allowance and night premium",
        [
            "RCC operators on the 12-hour pattern receive a shift allowance of 17.5% of basic "
            "salary, because every operator works both days and nights. The allowance is also "
            "paid during paid holiday and sick leave.",
            "Contact centre advisors receive a night premium of £3.10 per hour for every hour "
            "worked between 20:00 and 08:00.",
        ],
    ),
    (
        "4. Overtime",
        [
            "Overtime is time worked beyond your contracted hours that your line manager has "
            "asked for or agreed in advance. It is recorded in MyTide within 5 working days; "
            "time not recorded within 5 working days is paid only with your manager's written "
            "approval.",
            "- Monday to Saturday: time and a half (1.5 x basic rate).",
            "- Sundays and bank holidays: double time (2 x basic rate).",
            "Overtime is paid in units of 30 minutes. Call-out time is paid as overtime at these "
            "rates.",
        ],
    ),
    (
        "5. Standby allowance",
        [
            "Employees on the standby rota receive a standby allowance for each standby period, "
            "whether or not they are called out:",
            "- £38 for each weekday standby period (Monday to Friday, 15:30 to 07:00 the next "
            "morning).",
            "- £60 for each Saturday, Sunday or bank holiday (24 hours from 07:00).",
            "A full standby week from Monday to the following Monday morning is therefore paid "
            "£310. While on standby you must answer the standby phone at once, be fit to drive "
            "and drink no alcohol, and be able to reach a site within 60 minutes of being "
            "called. Standby staff take their Tidewater van home for the standby week.",
            "The standby rota is one week in five for most staff. Changes to the rota and the "
            "allowances are being reviewed with the joint consultative committee; until a new "
            "version of this policy is issued, the amounts above apply.",
        ],
    ),
    (
        "6. Call-out pay",
        [
            "A call-out is when you are asked to go to work, or to work remotely for more than "
            "15 minutes, outside your normal hours. Each call-out is paid for the time worked, "
            "including travel from home and back, at the overtime rate, with a minimum payment "
            "of 3 hours at the overtime rate. A second call-out that starts within those 3 hours "
            "is covered by the first minimum payment.",
            "If you are called out and are not on standby, the same call-out rules apply. If you "
            "have to use your own car, mileage is paid at £0.48 per mile.",
            "Remote calls of 15 minutes or less while on standby are covered by the standby "
            "allowance and are not paid separately.",
        ],
    ),
    (
        "7. Rest and fatigue",
        [
            "Nobody may work more than 14 hours in any 24-hour period, including call-outs and "
            "travel. If a call-out runs past midnight (00:00), you must have at least 10 hours' "
            "rest before starting your next normal shift. Any part of that rest that falls in "
            "your normal working hours is paid at your basic rate, so you lose no pay.",
            "Tell the standby manager if you are too tired to drive safely. They will send "
            "someone else, and nobody will be criticised for saying so.",
        ],
    ),
    (
        "8. Meal and subsistence allowances",
        [
            "A meal allowance of £7.20 is paid when overtime extends your shift by more than 2 "
            "hours, or when a call-out lasts more than 4 hours.",
            "When work needs an overnight stay away from home, Tidewater books and pays for the "
            "hotel and you receive a subsistence allowance of £32 per night.",
        ],
    ),
    (
        "9. Bank holidays",
        [
            "Full-time employees receive 26 days' paid annual leave plus the 8 bank holidays. If "
            "you work on a bank holiday, you are paid double time for the hours worked and "
            "receive a day off in lieu, to be taken within 6 months.",
        ],
    ),
    (
        "10. Pay dates and claims",
        [
            "Pay is monthly, on the 25th of each month, or the last working day before it if the "
            "25th falls at a weekend or on a bank holiday. Overtime, call-out, standby and meal "
            "claims must be entered in MyTide by the 5th of the following month and are paid in "
            "that month's pay. Late claims are paid a month later.",
        ],
    ),
    (
        "11. Questions",
        [
            "Questions about this policy go to Joanne Whitcombe, HR Manager, or to "
            "payroll@tidewaterwater.co.uk. The allowances in this policy are reviewed each year "
            "in February with the joint consultative committee, and any change takes effect from "
            "1 April.",
        ],
    ),
]


PAY_POLICY = PdfSections(
    "standby-and-overtime-pay-policy.pdf",
    title=PAY_TITLE,
    subject="Standby allowances, call-out pay, overtime, shift allowance, rest rules",
    author="Joanne Whitcombe, HR Manager",
    footer="HR-07 Standby, Call-out and Overtime Pay",
    meta=PAY_META,
    sections=PAY_SECTIONS,
    heading_font=(12, 7),
    body_font=(10.5, 5.5),
    gaps=(1.2, 2),
)


# --------------------------------------------------------------------------------------
# 3. Contractor scorecard (Word, criteria x contractors)
# --------------------------------------------------------------------------------------

SCORECARD_TITLE = "Contractor Performance Scorecard 2025"

SCORECARD_INTRO = [
    "Prepared by Gemma Tull, Procurement & Contracts Manager, and issued on 3 February 2026. "
    "Scores agreed with Stuart Nance (network contractors), Declan Moss and Hannah Rudd "
    "(wastewater contractors) and Kwame Boateng (safety).",
    "Each framework contractor is scored once a year on five criteria, each from 1 (poor) to 10 "
    "(excellent), so the total is out of 50. Scores are based on site inspections, incidents, "
    "job records in FieldLink, customer complaints and invoices during calendar year 2025 only.",
]

CONTRACTORS = (
    "Brackwater Civils",
    "Pellam Pumps Ltd",
    "Saltmarsh Tankering",
    "Greyrock Reinstatement",
    "Corwen Pipe Relining",
    "Vantage Traffic Management",
)

SCORECARD_SCOPE = (
    "Mains repairs and new connections",
    "Pump overhaul and repair",
    "Tankering, sewer jetting and CCTV",
    "Road and footway reinstatement",
    "Sewer and water main relining",
    "Traffic management for street works",
)

SCORECARD_CRITERIA = (
    "Safety",
    "Quality and right first time",
    "Programme and on-time completion",
    "Customer impact and complaints",
    "Commercial and value",
)

# scores[criterion][contractor], same order as CONTRACTORS
SCORECARD_SCORES = (
    (8, 7, 9, 6, 8, 4),
    (7, 6, 8, 6, 9, 8),
    (7, 4, 9, 7, 8, 8),
    (6, 7, 8, 5, 8, 7),
    (7, 5, 7, 8, 6, 7),
)

SCORECARD_RESULT = (
    "Approved",
    "Improvement plan",
    "Preferred",
    "Approved",
    "Approved",
    "Approved; safety audit",
)

SCORECARD_NOTES = [
    ("Thresholds", None),
    ("A total of 40 or more gives preferred-contractor status for the next year.", "List Bullet"),
    (
        "A total below 30 puts the contractor on an improvement plan with quarterly review "
        "meetings.",
        "List Bullet",
    ),
    (
        "A safety score of 4 or lower triggers a safety audit by Kwame Boateng's team, whatever "
        "the total.",
        "List Bullet",
    ),
    ("Outcome for 2025", None),
    (
        "Preferred contractor for 2026: Saltmarsh Tankering (41 out of 50). 97% of its "
        "emergency tanker call-outs were on site within 2 hours.",
        "List Bullet",
    ),
    (
        "Improvement plan: Pellam Pumps Ltd (29 out of 50). Main issue: late return of "
        "overhauled pumps. 3 of 11 overhauls in 2025 came back late, and Quay Street pump 3, "
        "sent for overhaul on 10 November 2025 and due back on 2 January 2026, had still not "
        "been returned when this scorecard was issued. First review meeting on 16 April 2026, "
        "led by Gemma Tull with Declan Moss.",
        "List Bullet",
    ),
    (
        "Safety audit: Vantage Traffic Management scored 4 on safety after two incidents, in "
        "June and September 2025, in which its operatives crossed live traffic lanes to move "
        "cones. The audit is led by Kwame Boateng in March 2026. Its total of 34 is otherwise "
        "acceptable.",
        "List Bullet",
    ),
    (
        "Greyrock Reinstatement had the lowest customer score (5): 14 reinstatements failed the "
        "highway authority's inspection and had to be redone, leaving trenches coned off for "
        "longer.",
        "List Bullet",
    ),
    (
        "Corwen Pipe Relining had the highest quality score (9), with no lining defects found on "
        "CCTV in 2025.",
        "List Bullet",
    ),
]


def scorecard_rows() -> list[tuple[str, ...]]:
    """The scores turned to one column per contractor, with the totals computed, never typed."""
    totals = [sum(col) for col in zip(*SCORECARD_SCORES, strict=True)]
    rows: list[tuple[str, ...]] = [("Work for Tidewater", *SCORECARD_SCOPE)]
    for criterion, scores in zip(SCORECARD_CRITERIA, SCORECARD_SCORES, strict=True):
        rows.append((f"{criterion} (1-10)", *[str(s) for s in scores]))
    rows.append(("Total (of 50)", *[str(t) for t in totals]))
    rows.append(("Result for 2026", *SCORECARD_RESULT))
    return rows


CONTRACTOR_SCORECARD = DocxTable(
    "contractor-scorecard-2025.docx",
    title=SCORECARD_TITLE,
    subject="Annual contractor scores for safety, quality, programme, customer impact and value",
    author="Gemma Tull, Procurement & Contracts Manager",
    intro=SCORECARD_INTRO,
    section="Scores",
    header=("Criterion", *CONTRACTORS),
    rows=scorecard_rows(),
    notes=SCORECARD_NOTES,
    font_size=8.5,
)


# --------------------------------------------------------------------------------------
# 4. Mains repair hygiene procedure (Word, headings and numbered lists)
# --------------------------------------------------------------------------------------

HYGIENE_TITLE = "NW-11 Mains Repair Hygiene and Return to Service"

HYGIENE_CONTENT: list[tuple[str, str]] = [
    ("h0", HYGIENE_TITLE),
    (
        "p",
        "Procedure NW-11, version 4. Effective 5 January 2026. Owner: Rosa Pengelly, Water "
        "Quality Manager. Approved by Huw Penhallow, Director of Water Services.",
    ),
    ("h1", "Purpose"),
    (
        "p",
        "When a drinking water main is opened for a repair, dirt, trench water or germs can get "
        "into water that customers will drink. This procedure keeps the inside of the main clean "
        "while it is open and makes sure it is flushed and, where needed, sampled before "
        "customers use the water again.",
    ),
    ("h1", "Scope"),
    (
        "p",
        "All repairs, cut-ins and connections on drinking water mains and service pipes by "
        "Tidewater network crews and by contractors such as Brackwater Civils. Commissioning of "
        "new mains follows NW-12 and is not covered here.",
    ),
    ("h1", "Before you start"),
    (
        "num",
        "Everyone who works in the excavation while the main is open holds a valid Tidewater "
        "Water Hygiene Card (the blue card). The card is renewed every 3 years after a half-day "
        "course and a health questionnaire.",
    ),
    (
        "num",
        "Nobody who has had diarrhoea or vomiting in the last 48 hours works on an open main. "
        "Tell the gang leader, who will find other work for you.",
    ),
    (
        "num",
        "Use the blue hygiene tool kit, which is kept only for clean water work. Never use tools, "
        "pumps or hoses that have been used on sewers.",
    ),
    (
        "num",
        "Take pipes and fittings from the clean store with their end caps on, and keep them off "
        "the ground on the van or on a clean sheet.",
    ),
    (
        "num",
        "Make up the swab and spray solution at 1,000 mg/l chlorine: 1 litre of 14-15% sodium "
        "hypochlorite from a TC-105 drum to 140 litres of clean water, in the marked sprayer.",
    ),
    ("h1", "During the repair"),
    (
        "num",
        "Keep the water in the excavation below the bottom of the pipe at all times, with a pump "
        "kept for clean water work.",
    ),
    (
        "num",
        "If trench water or soil gets into the open main, stop and tell the gang leader. "
        "Contamination is now suspected and the sampling rules below apply.",
    ),
    (
        "num",
        "Where possible keep the main under slight pressure during the repair, so that water "
        "flows out of the main rather than into it.",
    ),
    (
        "num",
        "Spray the inside of every new pipe and fitting, and the cut ends of the existing main, "
        "with the 1,000 mg/l solution and leave it for at least 5 minutes before fitting.",
    ),
    (
        "num",
        "Anything that touches the ground is sprayed again before it goes into the main.",
    ),
    ("h1", "Flushing and return to service"),
    (
        "num",
        "Tell the RCC before you recharge the main. Open the valves slowly, taking at least 15 "
        "minutes to recharge it, so that sediment is not stirred up.",
    ),
    (
        "num",
        "Flush through a hydrant or washout downstream of the repair for at least 3 pipe volumes, "
        "whatever the size of the main, and until the water runs clear.",
    ),
    (
        "num",
        "Measure at the flushing point: free chlorine must be within 0.1 mg/l of the normal "
        "residual for that zone (shown in FieldLink), and turbidity below 1 NTU.",
    ),
    (
        "num",
        "Dechlorinate flushing water with TC-162 sodium thiosulphate tablets before it reaches a "
        "surface water drain or watercourse. Swab and spray solution is never emptied into a "
        "drain or watercourse.",
    ),
    (
        "num",
        "Record the pipe volumes flushed and the chlorine and turbidity readings on the FieldLink "
        "hygiene checklist, then tell the RCC that the main is back in service.",
    ),
    ("h1", "When bacteriological samples are needed"),
    (
        "p",
        "Take bacteriological samples at the flushing point after any repair where one of these "
        "applies:",
    ),
    ("num2", "the main is 300 mm in diameter or larger;"),
    (
        "num2",
        "trench water or soil got into the main, or contamination is suspected for any reason;",
    ),
    ("num2", "the main was out of service for more than 24 hours;"),
    ("num2", "the main feeds a hospital or a home dialysis customer directly."),
    (
        "p",
        "Samples follow LAB-02 and must reach the Ambrook Laboratory within 6 hours. Where "
        "contamination is suspected, the main stays off supply until the Water Quality Scientist "
        "confirms clear results. In the other cases the main can go back into supply while the "
        "results are awaited.",
    ),
    ("h1", "Responsibilities"),
    ("bullet", "Gang leader: hygiene checklist, stopping work if contamination is suspected."),
    ("bullet", "Network technicians: hygiene card, clean tools, swab and spray, flushing."),
    (
        "bullet",
        "Water Quality Scientist: sampling decisions and return to supply where contamination is "
        "suspected.",
    ),
    ("bullet", "RCC: told before the main is recharged and when it is back in service."),
]


HYGIENE_PROCEDURE = DocxContent(
    "mains-repair-hygiene-procedure.docx",
    subject="Keeping mains clean during repairs, flushing, sampling and return to service",
    author="Rosa Pengelly, Water Quality Manager",
    content=HYGIENE_CONTENT,
)


DOCUMENTS = (CHEMICAL_SCHEDULE, PAY_POLICY, CONTRACTOR_SCORECARD, HYGIENE_PROCEDURE)

if __name__ == "__main__":
    build(Path(__file__).resolve().parent / "docs", DOCUMENTS, FIXED_DATE, COMPANY)
