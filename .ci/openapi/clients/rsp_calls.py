"""The first calls an RSP makes, through the Python client generated from the served /openapi-rsp.json
(openapi-python-client): a token by client credentials, a location by id, the statistics, an export polled to
COMPLETED, a new link for it, and its file. .ci/openapi/clients.sh runs it with the generated package
`location_exchange_rsp` on the path; it exits non-zero on the first step that fails.

Environment: BASE_URL, RSP_CLIENT_ID, RSP_CLIENT_SECRET, LOCATION_ID (a location the operator created), and
EXPORT_TIMEOUT_SECONDS.
"""

import os
import sys
import time
import uuid

import httpx

from location_exchange_rsp import AuthenticatedClient, Client
from location_exchange_rsp.api.authentication import issue_token
from location_exchange_rsp.api.exports import get_export, renew_export_link, request_export
from location_exchange_rsp.api.locations import get_location
from location_exchange_rsp.api.statistics import get_location_statistics
from location_exchange_rsp.models import (
    ExportAccepted,
    ExportCompleted,
    ExportFormat,
    ExportPending,
    ExportRequest,
    JsonExportFile,
    Location,
    ServiceabilityStatus,
    Statistics,
    TokenRequest,
    TokenRequestGrantType,
    TokenResponse,
)

BASE_URL = os.environ["BASE_URL"]
LOCATION_ID = uuid.UUID(os.environ["LOCATION_ID"])
DEADLINE = time.monotonic() + float(os.environ["EXPORT_TIMEOUT_SECONDS"])


def check(condition: bool, message: str) -> None:
    if not condition:
        sys.exit(message)


def main() -> None:
    token = issue_token.sync(
        client=Client(base_url=BASE_URL, raise_on_unexpected_status=True),
        body=TokenRequest(
            grant_type=TokenRequestGrantType.CLIENT_CREDENTIALS,
            client_id=os.environ["RSP_CLIENT_ID"],
            client_secret=os.environ["RSP_CLIENT_SECRET"],
            scope="locations:read",
        ),
    )
    check(isinstance(token, TokenResponse), f"token: {token}")
    print(f"token: {token.token_type}, expires in {token.expires_in} s")
    api = AuthenticatedClient(base_url=BASE_URL, token=token.access_token, raise_on_unexpected_status=True)

    # The read side applies the operator's write shortly after it: a 404 until then.
    location = get_location.sync_detailed(id=LOCATION_ID, client=api)
    while location.status_code == 404 and time.monotonic() < DEADLINE:
        time.sleep(0.2)
        location = get_location.sync_detailed(id=LOCATION_ID, client=api)
    check(isinstance(location.parsed, Location), f"location: {location.status_code} {location.content!r}")
    check(location.parsed.id == LOCATION_ID, f"location: another id, {location.parsed.id}")
    print(f"location: {location.parsed.id} in {location.parsed.geography.locality}, ETag {location.headers['etag']}")

    # The statistics projection counts the location shortly after the write too.
    statistics = get_location_statistics.sync(client=api, status=[ServiceabilityStatus.ACTIVE])
    while isinstance(statistics, Statistics) and statistics.total_count == 0 and time.monotonic() < DEADLINE:
        time.sleep(0.2)
        statistics = get_location_statistics.sync(client=api, status=[ServiceabilityStatus.ACTIVE])
    check(isinstance(statistics, Statistics), f"statistics: {statistics}")
    check(statistics.total_count >= 1, "statistics: no ACTIVE location, though the one read is")
    print(f"statistics: {statistics.total_count} ACTIVE")

    accepted = request_export.sync(client=api, body=ExportRequest(format_=ExportFormat.JSON))
    check(isinstance(accepted, ExportAccepted), f"export: {accepted}")
    status = get_export.sync(id=accepted.request_id, client=api)
    while isinstance(status, ExportPending) and time.monotonic() < DEADLINE:
        time.sleep(0.5)
        status = get_export.sync(id=accepted.request_id, client=api)
    # The discriminated union arrives as the variant's own class.
    check(isinstance(status, ExportCompleted), f"export {accepted.request_id}: {status}")
    print(f"export: {status.request_id} COMPLETED, {status.total_count} locations, {status.size_bytes} bytes")

    renewed = renew_export_link.sync(id=status.request_id, client=api)
    check(isinstance(renewed, ExportCompleted), f"link: {renewed}")
    download = httpx.get(renewed.export_url, timeout=30)
    check(download.status_code == 200, f"download: {download.status_code}")
    file = JsonExportFile.from_dict(download.json())
    check(file.total_count == status.total_count, f"file: totalCount {file.total_count}, not {status.total_count}")
    check(any(item.id == LOCATION_ID for item in file.locations), f"file: without location {LOCATION_ID}")
    print(f"file: {len(file.locations)} locations, the one read among them")


if __name__ == "__main__":
    main()
