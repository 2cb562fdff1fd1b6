import os

import requests

API = os.environ.get("CATALOG_API", "http://localhost:8000")
LIMITS = {"page": 50}


def get(path, **params):
    """One place for timeouts and the base address."""
    return requests.get(API + path, params=params, timeout=2.0)


class Ledger:
    def __init__(self, base):
        self.session = requests.Session()
        self.base = base

    def _post(self, url, body):
        return self.session.post(url, json=body)

    def book(self, entry):
        return self._post(os.environ["LEDGER_URL"] + "/entries", entry)


def products(page):
    size = LIMITS.get("page")
    return get("/products", page=page, size=size).json()


def product(sku):
    return get(f"/products/{sku}").json()


def load(model, key):
    return db.session.get(model, key)


def owner(sku):
    return load(Owner, "/owners/" + sku)
