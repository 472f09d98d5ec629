"""A client of the Event Service written with requests-oauthlib, as its
documentation says for the password grant (Legacy Application Flow): an
OAuth2Session with a LegacyApplicationClient fetches the tokens, which
requests-oauthlib sends with HTTP Basic when given the client's secret;
the session refreshes them with the client's Basic credentials, and reads
the API by its links. eventsvctest/libraries_test.go runs it against a
reference server and expects no client finding.

Usage: python3 requests_client.py BASE_URL CLIENT_ID CLIENT_SECRET USER PASSWORD
"""
import os
import sys

from oauthlib.oauth2 import LegacyApplicationClient
from requests.auth import HTTPBasicAuth
from requests_oauthlib import OAuth2Session

base, client_id, client_secret, user, password = sys.argv[1:6]
# The reference server of a test listens on http://127.0.0.1: oauthlib
# refuses plain HTTP unless told, as its documentation says for local use.
if base.startswith("http://127.0.0.1:"):
    os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"
token_url = base + "/oauth/token"
session = OAuth2Session(client=LegacyApplicationClient(client_id=client_id))
session.fetch_token(token_url=token_url, username=user, password=password,
                    client_id=client_id, client_secret=client_secret, timeout=10)


def follow(address, rel):
    answer = session.get(address, timeout=10)
    answer.raise_for_status()
    return answer.json()["_links"][rel]["href"]


events = follow(base + "/api", "events")
create = follow(events, "create-new-event")
session.refresh_token(token_url, auth=HTTPBasicAuth(client_id, client_secret), timeout=10)
template = follow(events, "get-an-event")
event = session.get(template.replace("{id}", "1"), timeout=10)
event.raise_for_status()
print("listed, refreshed, and read event", event.json()["id"], "; create at", create)
