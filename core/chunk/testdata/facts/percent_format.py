"""Old-style % formatting of addresses."""
import os

import requests

USERS = os.getenv("USERS_HOST", "users")
base_url = os.getenv("BASE_URL", "http://localhost") + ":" + os.getenv("DAPR_HTTP_PORT", "3500")


def profile(uid):
    return requests.get("http://%s:8080/profiles/%s" % (USERS, uid)).json()


def order(body):
    return requests.post(url="%s/orders" % (base_url), json=body)


def report(day):
    return requests.get("http://reports:9000/daily/%(day)s" % {"day": day})


def discount(pct):
    return requests.get("http://pricing:8000/discount?pct=%d%%" % pct)
