"""Schemathesis hooks of .ci/openapi/fuzz.sh: the bulk import's media types, sent as the text they are.

POST /operator/imports takes NDJSON (application/x-ndjson) or CSV (text/csv) files; the document states both, each as a
string with its own example. schemathesis has no serializer for NDJSON and would send CSV through its text/plain one,
which writes any value as text; here generated strings go out as UTF-8 text. A value that is not a string (a negative
case of the body's type) has no text form that is not also a string, so it goes out as no body at all.

A CSV body starts with the header row of the document's own text/csv example, unless its first line already is that
header (the example itself): a generated string is almost never a header the import accepts, so without it every
generated CSV would stop at the header check (400) and the record reader and the row rules behind it would never be
fuzzed. The header comes from the document the run tests, so it is the one the import checks (LOCATION_CSV_COLUMNS
of libs/contracts, which writes the example).
"""

import schemathesis

CSV = "text/csv"


def as_text(ctx, value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return None


def csv_header(operation):
    """The first line of the text/csv example the document states for this operation."""
    content = operation.definition.raw.get("requestBody", {}).get("content", {})
    example = content.get(CSV, {}).get("example")
    if not isinstance(example, str) or example == "":
        raise RuntimeError(f"{operation.label}: the document states no text/csv example to take the CSV header from")
    return example.splitlines()[0]


def as_csv(ctx, value):
    if isinstance(value, str):
        header = csv_header(ctx.case.operation)
        if value.split("\n", 1)[0].rstrip("\r") != header:
            value = f"{header}\r\n{value}"
    return as_text(ctx, value)


# Registered by call, not as decorators: the decorator returns None, and these stay callable (and testable) by name.
schemathesis.serializer("application/x-ndjson")(as_text)
schemathesis.serializer(CSV)(as_csv)
