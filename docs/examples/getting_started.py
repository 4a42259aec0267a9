"""docs/getting-started.md, steps 3 to 8, with the Python server SDK (guard-sdk): a principal token,
a consent, the Consent Gate, the withdrawal (and its webhook delivery, verified), a DSR.

    GUARD=http://127.0.0.1:8080 GUARD_KEY=gk_live_... python docs/examples/getting_started.py

With WEBHOOK_SECRET (and WEBHOOK_PORT) from step 6 it also listens for the withdrawal's delivery and
verifies its signature; without them it skips that part.
"""

import json
import os
import queue
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict

import guard

GUARD = os.environ["GUARD"]  # the service's address
GUARD_KEY = os.environ["GUARD_KEY"]  # its service key: server-side only
WEBHOOK_SECRET = os.environ.get("WEBHOOK_SECRET")
WEBHOOK_PORT = int(os.environ.get("WEBHOOK_PORT", "9099"))
EXTERNAL_ID, EMAIL = "user-44", "meera@example.com"

deliveries: "queue.Queue[Dict[str, Any]]" = queue.Queue()


class Receiver(BaseHTTPRequestHandler):
    """Verifies each webhook delivery before trusting it, then hands the event over."""

    def do_POST(self) -> None:
        raw_body = self.rfile.read(int(self.headers.get("Content-Length", 0)))  # the bytes as received
        check = guard.verify_standard_webhook(WEBHOOK_SECRET or "", raw_body, dict(self.headers))
        self.send_response(204 if check.valid else 401)  # answer 2xx quickly: Guard retries the rest
        self.end_headers()
        if check.valid:
            deliveries.put(json.loads(raw_body))
        else:
            print(f"rejected a delivery: {check.reason}")

    def log_message(self, *args: object) -> None:  # keep the walkthrough's output to its results
        pass


with guard.GuardClient(base_url=GUARD, api_key=GUARD_KEY) as client:
    # 2. The organisation and its published notice (public reads).
    org = client.get_organization("demo")
    notice = client.get_notices(org["orgId"])["notices"][0]
    print(f"organisation {org['orgId']}, notice {notice['noticeId']}")

    # 3. A principal token for your signed-in user; naming the email lets record_consent find them.
    # The client keeps the token for principal calls (step 8); hand accessToken to your app.
    token = client.broker_token(EXTERNAL_ID, email=EMAIL)
    print(f"principal token: {token['accessToken'][:12]}...")

    # 4. Record a consent. The SDK sends an Idempotency-Key and reuses it if it retries.
    consent = client.record_consent(
        email=EMAIL, notice_id=notice["noticeId"], purpose="Marketing", data_types=["email"]
    )
    consent_id = consent["consentId"]
    print(f"consent {consent_id}")

    # 5. Ask the Consent Gate before processing: allow means go ahead.
    print(client.verify_consent(consent_id)["decision"])  # allow

    # 6. Hear about withdrawals: a receiver that verifies each delivery before trusting it.
    receiver = ThreadingHTTPServer(("127.0.0.1", WEBHOOK_PORT), Receiver) if WEBHOOK_SECRET else None
    if receiver:
        threading.Thread(target=receiver.serve_forever, daemon=True).start()

    # 7. The principal withdraws: from now on the gate denies.
    print(client.withdraw_consent(consent_id)["status"])  # withdrawn
    print(client.verify_consent(consent_id)["decision"])  # deny
    if receiver:
        while True:  # until this consent's delivery (an earlier run's may come first); at most 15 s
            event = deliveries.get(timeout=15)
            if event["payload"].get("consentId") == consent_id:
                break
        receiver.shutdown()
        print(f"verified {event['eventType']} for {consent_id}")
    else:
        print("no WEBHOOK_SECRET: skipped the webhook delivery")

    # 8. A rights request, with the principal token the client kept from step 3.
    dsr = client.create_dsr_request(organization_id=org["orgId"], type="summary")
    due = datetime.fromtimestamp(dsr["dueAt"] / 1000, timezone.utc).isoformat(timespec="milliseconds")
    print(f"DSR {dsr['requestId']} is {dsr['status']}, due {due.replace('+00:00', 'Z')}")
