import json
import os

import requests

base_url = os.getenv("BASE_URL", "http://localhost") + ":" + os.getenv("DAPR_HTTP_PORT", "3500")
headers = {"dapr-app-id": "order-processor"}


def place(order):
    requests.post(url="%s/orders" % (base_url), data=json.dumps(order), headers=headers)


def rates():
    return requests.get("https://rates.example.org/v2/latest").json()
