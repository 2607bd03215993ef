"""Schemathesis hooks of deploy/openapi/fuzz.sh: the bulk import's media types, sent as the text they are.

POST /operator/imports takes NDJSON (application/x-ndjson) or CSV (text/csv) files, documented as strings; schemathesis
has no serializer for either, so generated strings go out as UTF-8 text. A value that is not a string (a negative case
of the body's type) has no text form that is not also a string, so it goes out as no body at all.
"""

import schemathesis


@schemathesis.serializer("application/x-ndjson", "text/csv")
def as_text(ctx, value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return None
