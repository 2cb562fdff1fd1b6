import os

import pika
import requests

LEDGER = os.getenv("LEDGER_HOST", "ledger")
RATES_URL = os.environ.get("RATES_URL") or "http://rates:8080"
TOKEN_PATH = os.environ["TOKEN_PATH"]
BROKER = "amqp://guest:guest@{}:5672/".format(os.getenv("BROKER_HOST", "rabbit"))


class Notifier:
    HOST = os.getenv("NOTIFY_HOST", "notify")

    def send(self, body):
        return requests.post("http://{h}:9000/send".format(h=self.HOST), json=body)


def balance(account):
    return requests.get(f"http://{LEDGER}:8080/accounts/{account}")
