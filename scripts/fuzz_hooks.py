"""Schemathesis hooks for scripts/fuzz.mjs: a schema fix-up and the run's statistics.

1. Works around a schemathesis bug (4.32.5): it folds `minLength`/`maxLength` into a string's
`pattern` and gets it wrong for the contract's `Id` (`^[a-z]{2,6}_[0-9A-Za-z]{8,64}$`, 11-71
characters becomes `^[a-z]{6}_...`). It would then never generate an id with a 2-5 letter prefix and
would treat every real id (`org_...`, `ntc_...`, `key_...`) as invalid input, so the success paths of
operations that take an id would only be reached by chance.

The fix drops `minLength`/`maxLength` where the pattern alone already implies them: the pattern is
anchored at both ends, has no alternation, and the lengths it can match lie within the bounds. The
schema then accepts exactly the same strings, so request generation and response checks keep the
contract's meaning. Remove it once schemathesis no longer narrows the pattern.

2. `RunStatistics` (below) counts the requests each phase sent and the link transitions the stateful
phase followed, for fuzz.mjs to print and check.
"""

import json
import os

import schemathesis
import schemathesis.cli
from schemathesis.core.jsonschema.patterns import pattern_length_bounds


def _lengths_implied(schema):
    pattern = schema.get("pattern")
    if not isinstance(pattern, str) or "|" in pattern:
        return False
    if not pattern.startswith("^") or not pattern.endswith("$") or pattern.endswith("\\$"):
        return False
    low, high = pattern_length_bounds(pattern)
    min_length = schema.get("minLength", 0)
    max_length = schema.get("maxLength")
    if not isinstance(min_length, int) or low < min_length:
        return False
    if max_length is None:
        return True
    return isinstance(max_length, int) and high is not None and high <= max_length


def _drop_implied_lengths(node):
    if isinstance(node, dict):
        if ("minLength" in node or "maxLength" in node) and _lengths_implied(node):
            node.pop("minLength", None)
            node.pop("maxLength", None)
        for value in node.values():
            _drop_implied_lengths(value)
    elif isinstance(node, list):
        for value in node:
            _drop_implied_lengths(value)


@schemathesis.hook
def before_load_schema(context, raw_schema):
    _drop_implied_lengths(raw_schema)


# ---- run statistics for scripts/fuzz.mjs -------------------------------------------------------------
#
# schemathesis' report gives test cases and the number of distinct links covered, not how many requests
# each phase sent or how many steps of the stateful phase followed a link. This handler counts both from
# the recorded scenarios and writes them as JSON to $GUARD_FUZZ_STATS when the run ends; fuzz.mjs prints
# them and fails the run when too few requests were sent or no link was followed.


@schemathesis.cli.handler()
class RunStatistics(schemathesis.cli.EventHandler):
    def __init__(self, *args, **kwargs):
        self.path = os.environ.get("GUARD_FUZZ_STATS")
        self.requests = {}  # phase -> requests answered
        self.transitions = 0  # stateful steps whose request took values from an earlier response
        self.links = {}  # link name ("source -> status -> target") -> times followed
        self.scenarios = 0

    def handle_event(self, ctx, event):
        from schemathesis.engine import events

        if isinstance(event, events.ScenarioFinished):
            # A replay of a failure (`is_final`) sends its requests again: they count as sent.
            phase = str(event.phase.value)
            recorder = event.recorder
            answered = sum(1 for i in recorder.interactions.values() if i.response is not None)
            self.requests[phase] = self.requests.get(phase, 0) + answered
            if phase == "stateful" and not event.is_final:
                self.scenarios += 1
                for case_id, node in recorder.cases.items():
                    if node.transition is None or not node.is_transition_applied:
                        continue
                    if recorder.interactions.get(case_id) is None:
                        continue
                    self.transitions += 1
                    self.links[node.transition.id] = self.links.get(node.transition.id, 0) + 1
        elif isinstance(event, events.EngineFinished) and self.path:
            with open(self.path, "w", encoding="utf-8") as out:
                json.dump(
                    {
                        "requests": self.requests,
                        "scenarios": self.scenarios,
                        "transitions": self.transitions,
                        "links": self.links,
                    },
                    out,
                )
