"""Score the yes or no of the round-22 ordering probes, asked as the evaluation reader.

Run from the repository root with the project's environment and the evaluation database
the corpus was loaded into (chat_eval_setup, see benchmarks/RESULTS.md, round 22):

    .venv/bin/python benchmarks/answers/probes/round22/score_order.py TENANT FILE.jsonl

An answer says yes or no when it opens with "Yes" or "No"; an "unknown" question must get
neither (the order is not stated, so none may be made up). chat_benchmark scores the dates.
"""

from __future__ import annotations

import json
import os
import sys


def main(tenant: str, gold: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    sys.path.insert(0, os.getcwd())
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django_tenants.utils import schema_context

    from chat import services

    right = wrong = missing = 0
    with schema_context(tenant), open(gold, encoding="utf-8") as lines:
        user = get_user_model().objects.get(username="eval-reader")
        for line in lines:
            item = json.loads(line)
            turn = services.message_send(user=user, conversation=None, question=item["q"])
            answer = turn.answer.strip()
            said = (
                "yes"
                if answer.startswith("Yes")
                else "no"
                if answer.startswith(("No:", "No,"))
                else "unknown"
            )
            if said == item["answer"]:
                right += 1
            elif said == "unknown":
                missing += 1
            else:
                wrong += 1
            mark = "OK " if said == item["answer"] else "BAD"
            print(f"{mark} {item['answer']:7} said={said:7} | {item['q']} | {answer[:120]!r}")
    print(f"right={right} wrong={wrong} no-verdict-where-one-was-due={missing}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
