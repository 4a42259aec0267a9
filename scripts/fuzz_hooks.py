"""Schemathesis hooks for scripts/fuzz.mjs.

Works around a schemathesis bug (4.32.5): it folds `minLength`/`maxLength` into a string's `pattern`
and gets it wrong for the contract's `Id` (`^[a-z]{2,6}_[0-9A-Za-z]{8,64}$`, 11-71 characters becomes
`^[a-z]{6}_...`). It would then never generate an id with a 2-5 letter prefix and would treat every
real id (`org_...`, `ntc_...`, `key_...`) as invalid input, so the success paths of operations that
take an id would only be reached by chance.

The fix drops `minLength`/`maxLength` where the pattern alone already implies them: the pattern is
anchored at both ends, has no alternation, and the lengths it can match lie within the bounds. The
schema then accepts exactly the same strings, so request generation and response checks keep the
contract's meaning. Remove this file (and the `hooks` line in scripts/fuzz.mjs) once schemathesis
no longer narrows the pattern.
"""

import schemathesis
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
